// The CLI's terminal I/O (modelled on gh's pkg/iostreams): data on stdout, messages and progress on
// stderr, and whether each is a terminal, which decides between live redraws and plain lines.
import type { Readable, Writable } from "node:stream";

export interface IoStreams {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  /** A person reads stdout: tables with headers, friendly sentences. Otherwise: data for a script. */
  readonly isStdoutTty: boolean;
  readonly isStderrTty: boolean;
  readonly isStdinTty: boolean;
  out(line: string): void;
  err(line: string): void;
}

export function processIo(): IoStreams {
  // A reader that goes away (`gpu ls | head -1`) is not an error of ours.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isStdoutTty: Boolean(process.stdout.isTTY),
    isStderrTty: Boolean(process.stderr.isTTY),
    isStdinTty: Boolean(process.stdin.isTTY),
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
  };
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const REDRAW_MS = 120;

/**
 * A status line on stderr. On a terminal it is redrawn in place with a spinner; in a pipe or a log
 * file each new text is one plain line, printed only when it changes.
 */
export class ProgressLine {
  readonly #io: IoStreams;
  #text = "";
  #frame = 0;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(io: IoStreams) {
    this.#io = io;
  }

  update(text: string): void {
    if (text === this.#text) return;
    this.#text = text;
    if (!this.#io.isStderrTty) return this.#io.err(text);
    this.#timer ??= setInterval(() => this.#draw(), REDRAW_MS);
    this.#draw();
  }

  /** Prints `line` on its own, the live line drawn again below it. */
  say(line: string): void {
    if (this.#timer) this.#io.stderr.write("\r\x1b[2K");
    this.#io.err(line);
    if (this.#timer) this.#draw();
  }

  /** Ends the live line, leaving `text` (if any) as its last state. */
  finish(text?: string): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#io.isStderrTty) {
      this.#io.stderr.write("\r\x1b[2K");
      if (text) this.#io.err(text);
    } else if (text && text !== this.#text) {
      this.#io.err(text);
    }
  }

  #draw(): void {
    const width = Math.max(20, (this.#io.stderr.columns || 80) - 1);
    const line = `${SPINNER[this.#frame++ % SPINNER.length]} ${this.#text}`;
    this.#io.stderr.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
  }
}
