// A local container's log: its stdout and stderr as JSON lines `{t, stream, line}` in
// <container dir>/logs.jsonl, rotated at a size limit into logs.1.jsonl (one older file kept, so the
// log never takes more than twice the limit). Kept across stop; removed with the folder on destroy.
// The agent writes it synchronously, so a reader that reads the files and subscribes in the same
// turn of the event loop misses no line and sees none twice.
import { closeSync, fstatSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { LogLine } from "../runtime/runtime.ts";

export const LOG_FILE = "logs.jsonl";
export const OLDER_LOG_FILE = "logs.1.jsonl";
/** The size at which the log file rotates. */
export const DEFAULT_LOG_FILE_BYTES = 8 * 1024 * 1024;
/** Longer lines are split, as Docker splits them. */
export const MAX_LINE_CHARS = 16 * 1024;
/** A follower this many lines behind is ended rather than buffered without bound. */
const MAX_FOLLOW_BACKLOG = 10_000;

type Follower = { line(entry: LogLine): void; end(): void };

/** Appends one running container's output to its log and hands each line to followers. */
export class LogWriter {
  readonly #dir: string;
  readonly #limitBytes: number;
  readonly #followers = new Set<Follower>();
  #fd: number;
  #size: number;
  #open = 2;
  #ended = false;

  constructor(dir: string, limitBytes = DEFAULT_LOG_FILE_BYTES) {
    this.#dir = dir;
    this.#limitBytes = limitBytes;
    this.#fd = openSync(join(dir, LOG_FILE), "a");
    this.#size = fstatSync(this.#fd).size;
  }

  /** Reads a child's output stream line by line; the log ends once both streams have. */
  capture(source: Readable, stream: LogLine["stream"]): void {
    let partial = "";
    source.setEncoding("utf8");
    source.on("data", (text: string) => {
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) this.write(stream, line);
    });
    source.on("close", () => {
      if (partial) this.write(stream, partial);
      if (--this.#open === 0) this.#end();
    });
  }

  write(stream: LogLine["stream"], text: string): void {
    if (this.#ended) return;
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    for (let at = 0; at === 0 || at < line.length; at += MAX_LINE_CHARS) {
      const entry: LogLine = { t: new Date().toISOString(), stream, line: line.slice(at, at + MAX_LINE_CHARS) };
      this.#append(`${JSON.stringify(entry)}\n`);
      for (const follower of this.#followers) follower.line(entry);
    }
  }

  /** The last `tail` lines, then (with `follow`) every new one until the container's output ends. */
  read(tail: number, follow: boolean): Readable {
    const lines = readTail(this.#dir, tail);
    if (!follow || this.#ended) return Readable.from(lines);
    const reader = new Readable({ objectMode: true, read() {} });
    for (const entry of lines) reader.push(entry);
    const follower: Follower = {
      line: (entry) => {
        if (reader.readableLength >= MAX_FOLLOW_BACKLOG) return void reader.destroy(new Error("the reader fell too far behind the log"));
        reader.push(entry);
      },
      end: () => reader.push(null),
    };
    this.#followers.add(follower);
    reader.once("close", () => this.#followers.delete(follower));
    return reader;
  }


  /** Open follows: one whose reader left is no longer counted (nor fed). */
  get followers(): number {
    return this.#followers.size;
  }

  #append(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.#size > 0 && this.#size + bytes > this.#limitBytes) {
      closeSync(this.#fd);
      renameSync(join(this.#dir, LOG_FILE), join(this.#dir, OLDER_LOG_FILE));
      this.#fd = openSync(join(this.#dir, LOG_FILE), "a");
      this.#size = 0;
    }
    writeSync(this.#fd, text);
    this.#size += bytes;
  }

  #end(): void {
    this.#ended = true;
    closeSync(this.#fd);
    for (const follower of this.#followers) follower.end();
    this.#followers.clear();
  }
}

/** The last `tail` lines of a container's log (older file first); [] when it has none yet. */
export function readTail(dir: string, tail: number): LogLine[] {
  const current = parseLines(readOptional(join(dir, LOG_FILE)));
  const lines = current.length >= tail ? current : [...parseLines(readOptional(join(dir, OLDER_LOG_FILE))), ...current];
  return lines.slice(-tail);
}

function readOptional(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function parseLines(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const json of text.split("\n")) {
    if (!json) continue;
    try {
      lines.push(JSON.parse(json) as LogLine);
    } catch {
      // A line cut short by a crash mid-write: the rest of the log is still good.
    }
  }
  return lines;
}
