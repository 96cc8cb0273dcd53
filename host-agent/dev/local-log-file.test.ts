// The local runtime's log file: JSON lines of both streams in the order written, the size bound
// (rotation into one older file), tails across the two files, long lines, and followers.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { LOG_FILE, LogWriter, MAX_LINE_CHARS, OLDER_LOG_FILE, readTail } from "./local-log-file.ts";
import type { LogLine } from "../runtime/runtime.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "local-log-"));
  dirs.push(dir);
  return dir;
}

const texts = (lines: LogLine[]) => lines.map((l) => `${l.stream}:${l.line}`);

/** A writer capturing two fresh pipes as a container's stdout and stderr. */
function capturing(dir: string): { writer: LogWriter; stdout: PassThrough; stderr: PassThrough } {
  const writer = new LogWriter(dir);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  writer.capture(stdout, "stdout");
  writer.capture(stderr, "stderr");
  return { writer, stdout, stderr };
}

async function collect(reader: Readable): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  for await (const line of reader) lines.push(line as LogLine);
  return lines;
}

describe("local log file", () => {
  it("captures both streams line by line, in the order written, with ISO times; a last line without a break is kept", async () => {
    const dir = newDir();
    const { stdout, stderr } = capturing(dir);
    stdout.write("one\ntw");
    stderr.write("oops\r\n");
    stdout.write("o\nthree");
    stdout.end();
    stderr.end();
    await waitUntil(() => (readTail(dir, 10).length === 4 ? true : undefined), "four lines");
    const lines = readTail(dir, 10);
    expect(texts(lines)).toEqual(["stdout:one", "stderr:oops", "stdout:two", "stdout:three"]);
    for (const { t } of lines) expect(new Date(t).toISOString()).toBe(t);
    expect(readFileSync(join(dir, LOG_FILE), "utf8").split("\n")[0]).toBe(JSON.stringify(lines[0]));
  });

  it("never grows past its limit: rotates into one older file, and a tail reads across both", () => {
    const dir = newDir();
    const limit = 2_000;
    const writer = new LogWriter(dir, limit);
    for (let i = 0; i < 200; i++) writer.write(i % 2 ? "stderr" : "stdout", `line ${i}`);
    expect(statSync(join(dir, LOG_FILE)).size).toBeLessThanOrEqual(limit);
    expect(statSync(join(dir, OLDER_LOG_FILE)).size).toBeLessThanOrEqual(limit);
    const current = readFileSync(join(dir, LOG_FILE), "utf8").trimEnd().split("\n").length;
    const kept = readTail(dir, 10_000);
    // Everything in the two files, the newest last; older lines went with the first rotations.
    expect(kept.length).toBeGreaterThan(current);
    expect(kept.at(-1)?.line).toBe("line 199");
    expect(kept.map((l) => l.line)).toEqual(Array.from({ length: kept.length }, (_, i) => `line ${200 - kept.length + i}`));
    expect(texts(readTail(dir, current + 2)).slice(0, 2)).toEqual(texts(kept.slice(-current - 2, -current)));
    expect(readTail(dir, 3).map((l) => l.line)).toEqual(["line 197", "line 198", "line 199"]);
  });

  it("keeps writing where it left off when the container starts again, and splits a line longer than 16 K characters", () => {
    const dir = newDir();
    new LogWriter(dir).write("stdout", "first run");
    const again = new LogWriter(dir);
    again.write("stdout", "x".repeat(MAX_LINE_CHARS + 5));
    again.write("stdout", "");
    expect(readTail(dir, 10).map((l) => l.line)).toEqual(["first run", "x".repeat(MAX_LINE_CHARS), "xxxxx", ""]);
  });

  it("a follower gets the tail, then each new line, and ends when the output ends", async () => {
    const { writer, stdout, stderr } = capturing(newDir());
    writer.write("stdout", "before 1");
    writer.write("stdout", "before 2");
    const follower = writer.read(1, true);
    const plain = writer.read(5, false);
    const followed = collect(follower);
    stdout.write("after\n");
    stderr.write("after on stderr\n");
    stdout.end();
    stderr.end();
    expect(texts(await followed)).toEqual(["stdout:before 2", "stdout:after", "stderr:after on stderr"]);
    expect(texts(await collect(plain))).toEqual(["stdout:before 1", "stdout:before 2"]);
    // Once the output has ended, a follow is only the tail.
    expect(texts(await collect(writer.read(1, true)))).toEqual(["stderr:after on stderr"]);
  });

  it("a follower that leaves stops getting lines; a log that does not exist yet is empty", async () => {
    const dir = newDir();
    expect(readTail(dir, 5)).toEqual([]);
    const writer = new LogWriter(dir);
    const follower = writer.read(5, true);
    const got: LogLine[] = [];
    follower.on("data", (line: LogLine) => got.push(line));
    writer.write("stdout", "seen");
    await waitUntil(() => (got.length === 1 ? true : undefined), "first line");
    expect(writer.followers).toBe(1);
    follower.destroy();
    await waitUntil(() => (writer.followers === 0 ? true : undefined), "the follower forgotten");
    writer.write("stdout", "not seen");
    expect(texts(got)).toEqual(["stdout:seen"]);
  });
});
