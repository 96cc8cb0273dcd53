import { afterEach, describe, expect, it, vi } from "vitest";
import { errorText, log, logLine, useLogLevel } from "./log.ts";

afterEach(() => {
  vi.restoreAllMocks();
  useLogLevel(undefined);
});

describe("log lines", () => {
  it("a line is one JSON object: level, msg, then the fields in order; undefined fields are left out", () => {
    const line = logLine("warn", "agent heartbeat timed out", { machine_id: 7, instance_id: undefined, last_seen_ms_ago: 15001 });
    expect(line).toBe('{"level":"warn","msg":"agent heartbeat timed out","machine_id":7,"last_seen_ms_ago":15001}');
    expect(line).not.toContain("\n");
  });

  it("each level goes through its own console method", () => {
    const info = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    log("info", "agent online", { machine_id: 1 });
    log("warn", "proxied response cut short: the host disconnected", { request_id: "req_a", instance_id: "i-aaaaaaaaaaaaaaaa" });
    log("error", "agent command not sent", { machine_id: 1 });
    expect(info.mock.calls).toEqual([['{"level":"info","msg":"agent online","machine_id":1}']]);
    expect(warn.mock.calls).toEqual([['{"level":"warn","msg":"proxied response cut short: the host disconnected","request_id":"req_a","instance_id":"i-aaaaaaaaaaaaaaaa"}']]);
    expect(error.mock.calls).toEqual([['{"level":"error","msg":"agent command not sent","machine_id":1}']]);
  });

  it("LOG_LEVEL: lines below it are not written; anything but warn or error writes every line", () => {
    const info = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const written = (setting: string | undefined) => {
      useLogLevel(setting);
      for (const level of ["info", "warn", "error"] as const) log(level, level);
      const levels = [...info.mock.calls, ...warn.mock.calls, ...error.mock.calls].map(([line]) => JSON.parse(line as string).level);
      vi.clearAllMocks();
      return levels;
    };
    expect(written("warn")).toEqual(["warn", "error"]);
    expect(written("error")).toEqual(["error"]);
    expect(written("info")).toEqual(["info", "warn", "error"]);
    for (const mistyped of [undefined, "", "WARN", "debug", " warn"]) expect(written(mistyped)).toEqual(["info", "warn", "error"]);
  });

  it("errorText: an Error's message, anything else as a string", () => {
    expect(errorText(new TypeError("no such stream"))).toBe("no such stream");
    expect(errorText("gone")).toBe("gone");
    expect(errorText(undefined)).toBe("undefined");
  });
});
