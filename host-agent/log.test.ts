import { describe, expect, it } from "vitest";
import { createLogger, errorMessage } from "./log.ts";

describe("the agent's log lines", () => {
  it("each line is one JSON object: time, level, msg, then the fields", () => {
    const lines: string[] = [];
    const log = createLogger((line) => lines.push(line));
    log.warn("container logs unreadable", { stream_id: 3, instance_id: "i-aaaaaaaaaaaaaaaa", error: "engine down" });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith("\n")).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({
      t: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), level: "warn", msg: "container logs unreadable",
      stream_id: 3, instance_id: "i-aaaaaaaaaaaaaaaa", error: "engine down",
    });
  });

  it("after the welcome every line carries the machine id, before it none does", () => {
    const lines: string[] = [];
    const log = createLogger((line) => lines.push(line));
    log.info("agent started", { runtime: "local" });
    log.addContext({ machine_id: 7 });
    log.info("connected", { heartbeat_ms: 5000 });
    log.error("command failed", { instance_id: "i-aaaaaaaaaaaaaaaa", error: "no such image" });
    const [started, connected, failed] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(started).not.toHaveProperty("machine_id");
    expect(connected).toMatchObject({ level: "info", msg: "connected", machine_id: 7, heartbeat_ms: 5000 });
    expect(Object.keys(failed!)).toEqual(["t", "level", "msg", "machine_id", "instance_id", "error"]);
  });

  it("errorMessage: an Error's message, anything else as a string", () => {
    expect(errorMessage(new Error("engine down"))).toBe("engine down");
    expect(errorMessage(42)).toBe("42");
  });
});
