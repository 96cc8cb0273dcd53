// Control frames: every message type round-trips, and malformed, unknown or invalid frames give a
// reason instead of throwing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeAgentMessage, decodeServerMessage, encodeMessage } from "./codec.ts";
import { agentMessage, serverMessage, type AgentMessage, type ServerMessage } from "./messages.ts";
import { MAX_HELD_VOLUMES } from "./volumes.ts";

const ID = "i-abcdefghijklmnop";
const spec = {
  instance_id: ID, image: "vllm/vllm-openai:latest", template: "vllm", model: "Qwen/Qwen2.5-0.5B-Instruct", env: { A: "1" }, command: [],
  ports: [8000], gpu_indices: [0, 1], disk_gb: 50, http_ports: [{ port: 8000, path: "/health" }],
};

const agentMessages: AgentMessage[] = [
  {
    type: "hello",
    protocol: 1,
    agent_version: "0.1.0",
    runtime: "local",
    hostname: "box",
    driver_version: "550.54.15",
    cuda_version: "12.4",
    gpus: [
      { index: 0, model: "rtx4090", name: "NVIDIA GeForce RTX 4090", uuid: "GPU-local-0", vram_mb: 24564 },
      { index: 1, model: "", name: "NVIDIA GeForce GTX 680", uuid: "GPU-local-1", vram_mb: 4095 },
    ],
    containers: [{ instance_id: ID, state: "running", message: "" }],
    cached_models: ["Qwen/Qwen2.5-0.5B-Instruct"],
    readiness: [{ instance_id: ID, ready_ports: [8000] }],
  },
  { type: "heartbeat" },
  { type: "readiness", instance_id: ID, ready_ports: [] },
  { type: "container", instance_id: ID, state: "error", message: "pull failed" },
  { type: "pull_progress", instance_id: ID, percent: 50 },
  { type: "ack", command_id: "c1", ok: true, error: "" },
  { type: "cache", models: ["a/b"] },
  { type: "volume_cache", volumes: [{ volume_id: "vol_abcdefghijklmnop", version: 7 }] },
  {
    type: "metrics",
    instances: [{
      instance_id: ID, cpu_percent: 12.5, memory_used_mib: 512,
      gpus: [{ index: 0, util_percent: 97, memory_used_mib: 70_000, memory_total_mib: 81_559, power_w: 612.4, power_limit_w: 700, temperature_c: 61, sm_clock_mhz: 1980 }],
    }],
  },
  { type: "http_response", stream: 1, status: 200, headers: [["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"]] },
  { type: "http_response", stream: 1, status: 200, headers: [["content-length", "2"]], body: "b2s=" },
  { type: "ws_accepted", stream: 2, protocol: "chat.v1" },
  { type: "ssh_key_used", stream: 2, key_id: "sshk_abcdefghijklmnop" },
  { type: "window", stream: 3, bytes: 1048576 },
  { type: "end", stream: 4 },
  { type: "abort", stream: 5, reason: "upstream_unavailable" },
  { type: "ws_close", stream: 6, code: 4001, reason: "bye" },
];

const serverMessages: ServerMessage[] = [
  { type: "welcome", protocol: 1, machine_id: 3, heartbeat_ms: 10000 },
  { type: "welcome", protocol: 1, machine_id: 3, heartbeat_ms: 10000, settles_streams: true },
  { type: "welcome", protocol: 1, machine_id: 3, heartbeat_ms: 10000, settles_streams: true, whole_responses: true },
  { type: "command", command_id: "c1", op: "create", instance_id: ID, spec },
  { type: "command", command_id: "c2", op: "destroy", instance_id: ID, spec: null },
  { type: "logs_open", stream: 9, instance_id: ID, tail: 10_000, follow: true, format: "events" },
  { type: "http_request", stream: 0xffffffff, instance_id: ID, port: 8000, method: "POST", path: "/v1/x%20y?q=1", headers: [["a", "b"]], has_body: true },
  { type: "ws_open", stream: 7, instance_id: ID, port: 8000, path: "/ws", headers: [], protocols: ["p"] },
  { type: "window", stream: 1, bytes: 1 },
  { type: "end", stream: 1 },
  { type: "abort", stream: 1, reason: "client went away" },
  { type: "ws_close", stream: 1, code: 1000, reason: "" },
];

describe("control frame codec", () => {
  it.each(agentMessages.map((m) => [m.type, m] as const))("round-trips the agent's %s", (_, message) => {
    expect(decodeAgentMessage(encodeMessage(message))).toEqual({ ok: true, message });
  });

  it.each(serverMessages.map((m) => [m.type, m] as const))("round-trips the server's %s", (_, message) => {
    expect(decodeServerMessage(encodeMessage(message))).toEqual({ ok: true, message });
  });

  it("rejects text that is not JSON", () => {
    expect(decodeServerMessage("{oops")).toEqual({ ok: false, reason: "frame is not JSON: {oops" });
  });

  it.each([
    ["an unknown type", { type: "launch_missiles" }, "type"],
    ["no type", { stream: 1 }, "type"],
    ["a non-object", [1, 2], "(root)"],
    ["stream 0", { type: "end", stream: 0 }, "stream"],
    ["a fractional window", { type: "window", stream: 1, bytes: 1.5 }, "bytes"],
    ["a bad instance id", { type: "command", command_id: "c", op: "start", instance_id: "i-UPPER", spec: null }, "instance_id"],
    ["an unknown op", { type: "command", command_id: "c", op: "reboot", instance_id: ID, spec: null }, "op"],
    ["a port out of range", { type: "ws_open", stream: 1, instance_id: ID, port: 70000, path: "/", headers: [], protocols: [] }, "port"],
    ["a header that is not a pair", { type: "http_request", stream: 1, instance_id: ID, port: 1, method: "GET", path: "/", headers: [["a"]], has_body: false }, "headers"],
    ["a heartbeat too fast", { type: "welcome", protocol: 1, machine_id: 1, heartbeat_ms: 5 }, "heartbeat_ms"],
    ["a log tail of 0", { type: "logs_open", stream: 1, instance_id: ID, tail: 0, follow: false, format: "text" }, "tail"],
    ["a log tail over 10,000", { type: "logs_open", stream: 1, instance_id: ID, tail: 10_001, follow: false, format: "text" }, "tail"],
    ["an unknown log format", { type: "logs_open", stream: 1, instance_id: ID, tail: 1, follow: false, format: "xml" }, "format"],
    ["a readiness path without its slash", { type: "command", command_id: "c", op: "create", instance_id: ID, spec: { ...spec, http_ports: [{ port: 8000, path: "health" }] } }, "path"],
  ])("rejects a server frame with %s, naming where", (_, frame, where) => {
    const decoded = decodeServerMessage(JSON.stringify(frame));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.reason).toContain(where);
  });

  it("rejects a hello that does not say the driver and CUDA versions", () => {
    const hello = { type: "hello", protocol: 1, agent_version: "0.1.0", runtime: "docker", hostname: "box", gpus: [], containers: [], cached_models: [] };
    const decoded = decodeAgentMessage(JSON.stringify(hello));
    expect(decoded).toEqual({ ok: false, reason: expect.stringContaining("driver_version") });
    expect(decodeAgentMessage(JSON.stringify({ ...hello, driver_version: "550.54.15", cuda_version: "12.4" })).ok).toBe(true);
  });

  it("takes a hello's disk in whole bytes, and a hello without one (an older agent's)", () => {
    const hello = { type: "hello", protocol: 1, agent_version: "0.1.0", runtime: "docker", hostname: "box", driver_version: "", cuda_version: "", gpus: [], containers: [], cached_models: [] };
    const disk = { total_bytes: 2 ** 40, free_bytes: 2 ** 39 };
    expect(decodeAgentMessage(JSON.stringify({ ...hello, disk }))).toEqual({ ok: true, message: { ...hello, disk } });
    expect(decodeAgentMessage(JSON.stringify(hello))).toEqual({ ok: true, message: hello });
    for (const bad of [{ total_bytes: -1, free_bytes: 0 }, { total_bytes: 1.5, free_bytes: 0 }, { total_bytes: 10 }]) {
      expect(decodeAgentMessage(JSON.stringify({ ...hello, disk: bad }))).toEqual({ ok: false, reason: expect.stringContaining("disk") });
    }
  });

  it("takes a spec and a hello from before readiness, without http_ports or readiness", () => {
    const { http_ports: _, ...olderSpec } = spec;
    expect(decodeServerMessage(JSON.stringify({ type: "command", command_id: "c", op: "create", instance_id: ID, spec: olderSpec }))).toEqual({
      ok: true, message: { type: "command", command_id: "c", op: "create", instance_id: ID, spec: olderSpec },
    });
    const hello = { type: "hello", protocol: 1, agent_version: "0.1.0", runtime: "docker", hostname: "box", driver_version: "", cuda_version: "", gpus: [], containers: [], cached_models: [] };
    expect(decodeAgentMessage(JSON.stringify(hello))).toEqual({ ok: true, message: hello });
  });

  it("keeps the two directions apart", () => {
    expect(decodeServerMessage(JSON.stringify({ type: "heartbeat" })).ok).toBe(false);
    expect(decodeAgentMessage(JSON.stringify({ type: "welcome", protocol: 1, machine_id: 1, heartbeat_ms: 1000 })).ok).toBe(false);
  });

  it("takes a metrics sample's unreadable values as null, and refuses a negative one or too many GPUs", () => {
    const gpu = { index: 0, util_percent: null, memory_used_mib: 1, memory_total_mib: 2, power_w: null, power_limit_w: null, temperature_c: 30, sm_clock_mhz: null };
    const frame = (gpus: unknown[], cpu: unknown = null) => JSON.stringify({ type: "metrics", instances: [{ instance_id: ID, cpu_percent: cpu, memory_used_mib: null, gpus }] });
    expect(decodeAgentMessage(frame([gpu])).ok).toBe(true);
    expect(decodeAgentMessage(frame([{ ...gpu, power_w: -1 }]))).toEqual({ ok: false, reason: expect.stringContaining("power_w") });
    expect(decodeAgentMessage(frame([gpu], "12 %")).ok).toBe(false);
    expect(decodeAgentMessage(frame(Array.from({ length: 17 }, (_, index) => ({ ...gpu, index }))))).toEqual({ ok: false, reason: expect.stringContaining("gpus") });
  });

  it("refuses a volume_cache naming more than MAX_HELD_VOLUMES versions, a malformed volume id or version 0", () => {
    const held = { volume_id: "vol_abcdefghijklmnop", version: 1 };
    const frame = (volumes: unknown[]) => JSON.stringify({ type: "volume_cache", volumes });
    expect(decodeAgentMessage(frame(Array(MAX_HELD_VOLUMES).fill(held))).ok).toBe(true);
    expect(decodeAgentMessage(frame(Array(MAX_HELD_VOLUMES + 1).fill(held)))).toEqual({ ok: false, reason: expect.stringContaining("volumes") });
    expect(decodeAgentMessage(frame([{ volume_id: "accounts/x", version: 1 }]))).toEqual({ ok: false, reason: expect.stringContaining("volume_id") });
    expect(decodeAgentMessage(frame([{ volume_id: "vol_abcdefghijklmnop", version: 0 }]))).toEqual({ ok: false, reason: expect.stringContaining("version") });
  });

  it("rejects an unknown container state and a percent above 100", () => {
    expect(decodeAgentMessage(JSON.stringify({ type: "container", instance_id: ID, state: "exploded", message: "" })).ok).toBe(false);
    expect(decodeAgentMessage(JSON.stringify({ type: "pull_progress", instance_id: ID, percent: 101 })).ok).toBe(false);
  });
});

describe("the data plane's messages, checked without zod", () => {
  // A valid frame of each type, then maybe one field replaced by a value at or around a bound, of
  // another JSON kind, or a header list with a pair of another length: a check looser or stricter
  // than the schema's shows.
  const edge = fc.oneof(
    fc.constantFrom(0, 1, 99, 100, 599, 600, 0xffffffff, 0x100000000, 2 ** 53, 2 ** 53 + 2, -1, 1.5, 1e300, "1", true, null),
    fc.integer(), fc.double(), fc.string({ maxLength: 4 }),
    fc.array(fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxLength: 3 }), { maxLength: 3 }),
  );
  const valid = fc.record({
    type: fc.constantFrom("window", "end", "abort", "http_response", "ws_close"),
    stream: fc.integer({ min: 1, max: 0xffffffff }), bytes: fc.integer({ min: 1 }), reason: fc.string({ maxLength: 4 }),
    status: fc.integer({ min: 100, max: 599 }), code: fc.integer(),
    headers: fc.array(fc.tuple(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 })), { maxLength: 3 }),
    body: fc.oneof(fc.constant(undefined), fc.base64String({ maxLength: 8 }), fc.constantFrom("A".repeat(21_848), "A".repeat(21_852))),
  }, { requiredKeys: ["type", "stream", "bytes", "reason", "status", "code", "headers"] });
  const frame = fc.tuple(valid, fc.option(fc.tuple(fc.constantFrom("stream", "bytes", "reason", "status", "headers", "body", "extra"), edge))).map(([base, change]) =>
    change === null ? base : { ...base, [change[0]]: change[1] });

  it("decode exactly as their schemas do, accepting the same frames and dropping unknown fields", () => {
    fc.assert(fc.property(frame, (raw) => {
      const text = JSON.stringify(raw);
      for (const [decode, schema] of [[decodeAgentMessage, agentMessage], [decodeServerMessage, serverMessage]] as const) {
        const expected = schema.safeParse(JSON.parse(text));
        const decoded = decode(text);
        expect(decoded.ok).toBe(expected.success);
        if (decoded.ok) expect(decoded.message).toStrictEqual(expected.data);
      }
    }), { numRuns: 5000 });
  });
});
