// The engine's framed log, as podman 4.3's Docker-compatible API sent it for a container running
// `echo out1; echo err1 >&2; printf nonl; sleep 2; echo out2` (captured with timestamps=true),
// fed in pieces that split headers and payloads; and Docker's nanosecond timestamps.
import { describe, expect, it } from "vitest";
import { demultiplexLogs, timestamped } from "./docker-logs.ts";
import type { LogLine } from "./runtime.ts";

const CAPTURED = Buffer.from(
  "\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u001e2026-11-23T01:53:59Z out1nonl\n" +
    "\u0002\u0000\u0000\u0000\u0000\u0000\u0000\u001a2026-11-23T01:53:59Z err1\n" +
    "\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u001a2026-11-23T01:54:01Z out2\n",
  "latin1",
);

async function demultiplexed(pieces: Buffer[]): Promise<LogLine[]> {
  const transform = demultiplexLogs();
  const lines: LogLine[] = [];
  transform.on("data", (line: LogLine) => lines.push(line));
  for (const piece of pieces) transform.write(piece);
  transform.end();
  await new Promise((resolve) => transform.once("end", resolve));
  return lines;
}

describe("docker log demultiplexing", () => {
  it("splits the frames into lines of their stream with the engine's times, however the bytes arrive", async () => {
    const expected: LogLine[] = [
      { t: "2026-11-23T01:53:59.000Z", stream: "stdout", line: "out1nonl" },
      { t: "2026-11-23T01:53:59.000Z", stream: "stderr", line: "err1" },
      { t: "2026-11-23T01:54:01.000Z", stream: "stdout", line: "out2" },
    ];
    expect(await demultiplexed([CAPTURED])).toEqual(expected);
    expect(await demultiplexed([...CAPTURED].map((byte) => Buffer.from([byte])))).toEqual(expected);
    expect(await demultiplexed([CAPTURED.subarray(0, 5), CAPTURED.subarray(5, 40), CAPTURED.subarray(40)])).toEqual(expected);
  });

  it("reads Docker's nanosecond times to the millisecond, keeps spaces and empty lines", () => {
    expect(timestamped("stdout", "2026-11-23T01:53:59.123456789Z  two  spaces")).toEqual({ t: "2026-11-23T01:53:59.123Z", stream: "stdout", line: " two  spaces" });
    expect(timestamped("stderr", "2026-11-23T01:53:59.5Z ")).toEqual({ t: "2026-11-23T01:53:59.500Z", stream: "stderr", line: "" });
  });

  it("a line without a time (never sent with timestamps=true) keeps its text and gets the time it was read", () => {
    const before = Date.now();
    const line = timestamped("stdout", "no time here");
    expect(line.line).toBe("no time here");
    expect(Date.parse(line.t)).toBeGreaterThanOrEqual(before);
  });
});
