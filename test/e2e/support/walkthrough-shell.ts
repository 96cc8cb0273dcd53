// Runs the README's shell commands as a reader would, block after block in one session: each block
// is a bash script that takes up the variables (arrays, exports) the blocks before it left, and
// leaves its own. Each command's stdout, stderr and exit status are kept apart, to check against
// what the README shows. The session's background jobs (a receiver, `gpu forward … &`) run until
// `end()`. Stricter than a reader's eye in one way: every curl fails on an HTTP error
// (--fail-with-body) and notes its status on stderr, so a refused request is a failure, not a line
// of JSON nobody reads; and a pipeline fails with any of its commands (pipefail).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ShellCommand } from "../../docs/readme-blocks.ts";

/** How long a command the README says Ctrl-C ends runs before the session presses it. */
const INTERRUPT_AFTER_S = 2;
/** At most how long the session waits for a background job's first output before it goes on. */
const BACKGROUND_START_S = 30;

export interface CommandResult {
  command: ShellCommand;
  status: number;
  stdout: string;
  stderr: string;
  /** The last HTTP status a curl of the command answered, if any. */
  http: number | null;
}

export class WalkthroughShell {
  readonly #dir: string;
  readonly #cwd: string;
  readonly #env: NodeJS.ProcessEnv;
  #blocks = 0;

  /** `dir`: the session's own files; `cwd`: the reader's folder; `env`: all the environment it has. */
  constructor(dir: string, cwd: string, env: NodeJS.ProcessEnv) {
    this.#dir = dir;
    this.#cwd = cwd;
    this.#env = env;
    writeFileSync(join(dir, "state.sh"), "");
    writeFileSync(join(dir, "jobs"), "");
  }

  /** Runs the commands in order, stopping at the first that fails; the results of those that ran. */
  async run(commands: ShellCommand[]): Promise<CommandResult[]> {
    const block = ++this.#blocks;
    const file = (n: number, what: string) => join(this.#dir, `${block}-${n}.${what}`);
    const script = [
      // Background jobs in process groups of their own: Ctrl-C (SIGINT) reaches them, as on a terminal, and end() can end each whole.
      "set -m",
      // A pipeline fails with any of its commands (`id=$(npx gpu launch … | jq -r .id)` with the launch refused), not only its last.
      "set -o pipefail",
      `curl() { command curl --fail-with-body --write-out '%{stderr}HTTP %{http_code}\\n' "$@"; }`,
      `__known=" $(compgen -v | tr '\\n' ' ') "`,
      `. ${quote(join(this.#dir, "state.sh"))}`,
      // What this block leaves for the next: every variable a block set (not bash's own).
      `__keep() { for __v in $(compgen -v); do case "$__known" in *" $__v "*) continue;; esac; case "$__v" in __*|BASH*|PIPESTATUS|_) continue;; esac; declare -p "$__v" 2>/dev/null; done > ${quote(join(this.#dir, "state.sh"))}; }`,
      ...commands.map((command, n) => {
        const io = `>${quote(file(n, "out"))} 2>${quote(file(n, "err"))} </dev/null`;
        const status = quote(file(n, "status"));
        if (command.background) {
          // A reader types the next command once the job has said it is up (`gpu forward` prints its
          // address once it listens), not while it is still starting.
          const said = `[ -s ${quote(file(n, "out"))} ] || [ -s ${quote(file(n, "err"))} ]`;
          return [
            `{ ${command.text}\n} ${io}; __p=$!; echo $__p >>${quote(join(this.#dir, "jobs"))}; echo 0 >${status}`,
            `for __i in $(seq ${BACKGROUND_START_S * 10}); do ${said} && break; kill -0 $__p 2>/dev/null || break; sleep 0.1; done`,
          ].join("\n");
        }
        if (command.interrupted) {
          return [
            `{ ${command.text}\n} ${io} & __p=$!`,
            `for __i in $(seq ${INTERRUPT_AFTER_S * 10}); do kill -0 $__p 2>/dev/null || break; sleep 0.1; done`,
            `kill -INT -- -$__p 2>/dev/null; wait $__p; __s=$?`,
            // Ended by Ctrl-C as the README says: its own way out (0), or the signal's (130).
            `[ $__s = 130 ] && __s=0; echo $__s >${status}; [ $__s = 0 ] || { __keep; exit $__s; }`,
          ].join("\n");
        }
        return `{ ${command.text}\n} ${io}; __s=$?; echo $__s >${status}; [ $__s = 0 ] || { __keep; exit $__s; }`;
      }),
      "__keep",
    ].join("\n");
    const scriptFile = join(this.#dir, `${block}.sh`);
    writeFileSync(scriptFile, script);
    const bash = spawn("bash", [scriptFile], { cwd: this.#cwd, env: this.#env, stdio: ["ignore", "ignore", "pipe"] });
    let own = "";
    bash.stderr.on("data", (chunk: Buffer) => (own += chunk.toString()));
    await once(bash, "exit");
    const results: CommandResult[] = [];
    commands.forEach((command, n) => {
      if (!existsSync(file(n, "status"))) return;
      const stderr = readFileSync(file(n, "err"), "utf8");
      const http = [...stderr.matchAll(/^HTTP (\d{3})$/gm)].at(-1)?.[1];
      results.push({ command, status: Number(readFileSync(file(n, "status"), "utf8")), stdout: readFileSync(file(n, "out"), "utf8"), stderr: stderr + own, http: http ? Number(http) : null });
    });
    return results;
  }

  /** Ends the background jobs the blocks started (each job's whole process group). */
  end(): void {
    for (const pid of readFileSync(join(this.#dir, "jobs"), "utf8").split("\n").filter(Boolean)) {
      try {
        process.kill(-Number(pid), "SIGTERM");
      } catch {
        // it ended by itself
      }
    }
  }
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
