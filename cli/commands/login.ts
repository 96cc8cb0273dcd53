// `gpu login`: checks an API URL and key against the service and saves them for later commands,
// beside the keys of other accounts saved before (`gpu accounts switch` goes back to one).
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { Command } from "@commander-js/extra-typings";
import { createGpuClient, ok } from "../../client/index.ts";
import { normalizeApiUrl, saveConfig } from "../config.ts";
import { CliError } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson } from "../format.ts";
import type { IoStreams } from "../iostreams.ts";
import { JSON_HELP } from "../options.ts";

export function loginCommand(f: Factory) {
  return new Command("login")
    .description("Save the API URL and key to $XDG_CONFIG_HOME/gpu-rental/config.json (mode 0600), after checking them; keys of other accounts saved before stay (`gpu accounts`)")
    .option("--url <url>", "the service's address, e.g. https://api.example.com (default: GPU_API_URL)")
    .option("--key <key>", "an API key (default: GPU_API_KEY, else read from stdin or asked for on a terminal)")
    .option("--json", `${JSON_HELP} (the account, /v1/me)`)
    .action(async (options) => {
      const url = options.url ?? f.env.GPU_API_URL ?? (await ask(f.io, "API URL: "));
      const apiUrl = normalizeApiUrl(url);
      const apiKey = (options.key ?? f.env.GPU_API_KEY ?? (await readKey(f.io))).trim();
      if (!apiKey) throw new CliError("no API key given: pass --key, set GPU_API_KEY, or pipe it in");
      const me = await ok(createGpuClient({ baseUrl: apiUrl, apiKey }).GET("/v1/me"));
      const path = await saveConfig(f.env, { apiUrl, apiKey, accountId: me.account.id });
      if (options.json) return printJson(f.io, me);
      f.io.out(`✓ Logged in to ${apiUrl} as ${me.account.id} (balance ${dollars(me.balance_micros)}); saved to ${path}`);
    });
}

/** The key from a pipe (`gpu login --url … < key.txt`), or typed on a terminal without echo. */
async function readKey(io: IoStreams): Promise<string> {
  if (!io.isStdinTty) {
    let text = "";
    for await (const chunk of io.stdin) text += String(chunk);
    return text;
  }
  return ask(io, "API key (not shown): ", true);
}

async function ask(io: IoStreams, question: string, hidden = false): Promise<string> {
  if (!io.isStdinTty) throw new CliError(`${question.replace(/[:(].*$/, "").trim()} not given; pass it as a flag`);
  if (!hidden) {
    const prompt = createInterface({ input: io.stdin, output: io.stderr });
    const answer = await prompt.question(question);
    prompt.close();
    return answer;
  }
  // Typed characters are echoed into a sink, so the key never shows on the screen.
  io.stderr.write(question);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const prompt = createInterface({ input: io.stdin, output: sink, terminal: true });
  const answer = await prompt.question("");
  prompt.close();
  io.stderr.write("\n");
  return answer;
}
