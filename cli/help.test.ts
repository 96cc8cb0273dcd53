// Every command line that does one thing answers --help with its usage, and the ones that print an
// API answer say they take --json. In-process: the same program the `gpu` bin runs
// (test/e2e/cli.test.ts starts the bin itself, through npx, and drives each command against a stack).
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { IoStreams } from "./iostreams.ts";
import { runCli } from "./main.ts";

/** Commands that print no API answer: a shell, SSH's byte stream, files copied. */
const WITHOUT_JSON = new Set(["ssh", "ssh-proxy", "cp"]);

/** Runs `gpu <argv>` with its output captured: the exit status and what it printed on stdout. */
async function gpu(...argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const sink = (collect: (text: string) => void) => new Writable({ write: (chunk: Buffer, _encoding, done) => (collect(chunk.toString()), done()) });
  const io: IoStreams = {
    stdin: Readable.from([]),
    stdout: sink((text) => (stdout += text)),
    stderr: sink(() => undefined),
    isStdoutTty: false,
    isStderrTty: false,
    isStdinTty: false,
    out: (line) => void (stdout += `${line}\n`),
    err: () => undefined,
  };
  const code = await runCli(argv, io, {});
  return { code, stdout };
}

/** The subcommands a help text lists (commander's own `help` left out). */
function subcommands(help: string): string[] {
  const section = help.split("\nCommands:\n")[1]?.split("\n\n")[0] ?? "";
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((name) => name !== "help");
}

/** Every command line that does one thing: a group's subcommands in place of the group. */
async function leafCommands(prefix: string[] = []): Promise<string[][]> {
  const { stdout } = await gpu(...prefix, "--help");
  const names = subcommands(stdout);
  if (names.length === 0) return [prefix];
  return (await Promise.all(names.map((name) => leafCommands([...prefix, name])))).flat();
}

describe("gpu --help", () => {
  it("works on every command, and each that prints an API answer takes --json", async () => {
    const leaves = await leafCommands();
    expect(leaves.map((words) => words.join(" "))).toEqual(expect.arrayContaining(["ls", "keys create", "webhooks deliveries", "ssh-keys add", "ssh-proxy", "cp", "volumes snapshots", "members invite", "accounts switch"]));
    for (const words of leaves) {
      const command = words.join(" ");
      const { code, stdout } = await gpu(...words, "--help");
      expect(code, command).toBe(0);
      expect(stdout, command).toContain(`Usage: gpu ${command}`);
      if (!WITHOUT_JSON.has(command)) expect(stdout, command).toContain("--json");
    }
  });

  it("the commands that change something take --quiet, which leaves stdout empty", async () => {
    for (const command of ["cp", "stop", "start", "rm", "idle-stop", "volumes rm", "volumes grow", "volumes save", "members role", "members rm", "accounts switch"]) {
      expect((await gpu(...command.split(" "), "--help")).stdout, command).toMatch(/-q, --quiet +print nothing on stdout/);
    }
  });
});
