// The README's walkthroughs as a newcomer runs them: a fresh `npm run dev`, then every block marked
// `<!-- walkthrough: … -->` in the README's order, in one shell session (test/docs/readme-blocks.ts
// reads them), with curl, jq, `npx gpu`, ssh and `npx node` for the TypeScript snippets. Each command
// must exit 0, and where the README shows its answer (a status, a JSON object's keys) the answer
// must have that shape. A reader fills in only what npm run dev printed: the key (`gpk_...`) and,
// here, the port it was given (`127.0.0.1:8787`). The reader's machine is a checkout of the
// repository (links to this one's files) with a `dataset` folder to copy, a home with an SSH key,
// and the machine's PATH; nothing else of this process's environment reaches it.
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../support/agent/temp-dir.ts";
import { readBlocks, scriptOf, shellCommands, type Block, type ShellCommand } from "../docs/readme-blocks.ts";
import { startDev, waitForReady, type Dev } from "./support/dev-process.ts";
import { freePort } from "./support/e2e-stack.ts";
import { ROOT } from "./support/gpu-cli.ts";
import { missingOpenSsh, openSshRequired } from "./support/openssh.ts";
import { WalkthroughShell, type CommandResult } from "./support/walkthrough-shell.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const walkthroughs = readBlocks(README).filter((block) => block.mark && block.mark.kind !== "not-walkthrough");

const scratch = useTempDir("gpu-readme-");
let dev: Dev | undefined;
let shell: WalkthroughShell;
/** What the reader fills in: npm run dev's port and the key it printed. */
let fillIn: (text: string) => string;

beforeAll(async () => {
  const port = await freePort();
  dev = startDev({ PORT: String(port), DEV_STATE_DIR: join(scratch.path, "state") }, ["--fresh"]);
  await waitForReady(dev);
  const key = /^\s+API key\s+(\S+)$/m.exec(dev.output())![1]!;
  fillIn = (text) => text.replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`).replaceAll("gpk_...", key);

  const home = join(scratch.path, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  if (!missingOpenSsh) execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "reader@laptop", "-f", join(home, ".ssh", "id_ed25519")]);
  // OpenSSH finds ~ in the password database, not in $HOME: this ssh reads the reader's home as theirs would.
  const bin = join(scratch.path, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "ssh"), [
    "#!/bin/sh",
    'config=/dev/null; [ -f "$HOME/.ssh/config" ] && config="$HOME/.ssh/config"',
    'exec /usr/bin/ssh -F "$config" -i "$HOME/.ssh/id_ed25519" "$@"',
  ].join("\n"));
  chmodSync(join(bin, "ssh"), 0o755);

  const checkout = join(scratch.path, "checkout");
  mkdirSync(join(checkout, "dataset"), { recursive: true });
  // The repository as a reader's checkout: its files (links to this one's), without its git or local state.
  for (const name of readdirSync(ROOT).filter((name) => ![".git", ".wrangler"].includes(name))) symlinkSync(join(ROOT, name), join(checkout, name));
  writeFileSync(join(checkout, "dataset", "train.jsonl"), '{"prompt": "six times seven", "answer": "42"}\n');
  for (const block of walkthroughs.filter((b) => b.lang === "ts")) writeFileSync(join(checkout, scriptOf(block).file), fillIn(block.text));

  const session = join(scratch.path, "session");
  mkdirSync(session);
  // The machine's PATH (its own npx, older node and all), not the test runner's node_modules/.bin.
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(join(ROOT, "node_modules")));
  shell = new WalkthroughShell(session, checkout, {
    PATH: [bin, ...path].join(delimiter), HOME: home, TMPDIR: process.env.TMPDIR, LANG: "C.UTF-8",
    // No registry is reached from CI: npm must not ask it whether npm itself is current.
    npm_config_update_notifier: "false",
  });
}, 180_000);

afterAll(async () => {
  shell?.end();
  if (dev && dev.child.exitCode === null) {
    const exited = once(dev.child, "exit");
    dev.child.kill("SIGINT");
    await exited;
  }
}, 60_000);

/** The commands a block runs: an sh block's own, or the command a ts block's first line gives. */
function commandsOf(block: Block): ShellCommand[] {
  if (block.lang === "sh") return shellCommands(block).map((command) => ({ ...command, text: fillIn(command.text) }));
  const { run } = scriptOf(block);
  return run ? [{ line: block.line + 1, text: run, status: null, keys: null, interrupted: false, background: false }] : [];
}

function check(result: CommandResult): void {
  const where = `README.md:${result.command.line}: ${result.command.text}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
  expect(result.status, where).toBe(0);
  if (result.command.status !== null && result.http !== null) expect(result.http, where).toBe(result.command.status);
  if (result.command.keys) {
    const answer = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(answer), where).toEqual(expect.arrayContaining(result.command.keys));
  }
}

const needsSsh = (block: Block) => block.lang === "sh" && /(^|\s)(npx gpu ssh|ssh) /m.test(block.text);

describe("the README's walkthroughs, run as written against a fresh npm run dev", () => {
  it("has walkthroughs to run", () => {
    expect(walkthroughs.filter((block) => block.mark!.kind === "walkthrough").length).toBeGreaterThan(5);
  });

  for (const block of walkthroughs) {
    const mark = block.mark!;
    const title = `${"name" in mark ? mark.name : ""} (README.md:${block.line})`;
    if (mark.kind === "skipped") {
      it.skip(`${title}: skipped: ${mark.reason}`, () => undefined);
      continue;
    }
    if (block.lang === "ts" && !scriptOf(block).run) continue;
    const sshMissing = needsSsh(block) && missingOpenSsh !== null && !openSshRequired;
    it.skipIf(sshMissing)(`${title}${sshMissing ? ` (skipped: ${missingOpenSsh})` : ""}`, async () => {
      const commands = commandsOf(block);
      const results = await shell.run(commands);
      for (const result of results) check(result);
      expect(results.map((r) => r.command.text)).toEqual(commands.map((c) => c.text));
    });
  }
});
