// The real agent process (local runtime) against a MachineDO that misbehaves: sequences of frames
// that the protocol's schemas accept but no correct MachineDO sends (stream ids reused across kinds,
// 0 and 2^32-1, windows of 2^53 and 1e300, data for streams never opened or long closed, closes with
// codes no socket may send and reasons past a close frame, hostile methods, paths and headers, SSH
// bytes that are not SSH), mixed with frames the schemas refuse and bytes that are no frame at all.
// After each sequence the agent still proxies a request to its instance, and it never exits. Random
// but repeatable: fast-check with a fixed seed. Terminals and file writes go only to an instance
// this host lacks: the local runtime's are the developer's own shell and folders.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataKind } from "../protocol/mux/frames.ts";
import type { ServerMessage } from "../protocol/messages.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { startAgentChild, type AgentChild } from "../test/support/agent/agent-child.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { sendHttpRequest, streamOutcome } from "../test/support/agent/proxy-client.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { useTempDir } from "../test/support/agent/temp-dir.ts";
import { waitUntil } from "../test/support/agent/wait-until.ts";

const ID = "i-muxhostile2345ab";
const ABSENT = "i-absentinstance23";
const SEED = 20261129;
/** Stream ids a sequence uses: few, so that its frames meet each other's streams. */
const SEQUENCE_STREAMS = 6;
/** Checks use ids far above the sequences'. */
let nextCheckStream = 1_000_000;

const stream = fc.oneof({ arbitrary: fc.integer({ min: 1, max: SEQUENCE_STREAMS }), weight: 6 }, fc.constantFrom(2 ** 32 - 1, 2 ** 31));
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("", "\0", "\r\n", "é".repeat(200), "x".repeat(5_000)));
const header = fc.oneof(
  fc.tuple(text, text),
  fc.constantFrom<[string, string]>(["host", "169.254.169.254"], ["connection", "upgrade, close"], ["transfer-encoding", "chunked"], ["content-length", "-1"],
    ["content-length", "99999999999999999999"], ["upgrade", "h2c"], ["x-forwarded-for", "127.0.0.1"], ["", ""], ["bad header", "v"], ["x", "a\r\nb: c"]),
);
const instance = fc.constantFrom(ID, ABSENT);
const port = fc.oneof(fc.constant(8000), fc.integer({ min: 1, max: 65_535 }));

/** Frames the schemas accept, with the values a correct MachineDO never sends. */
const validMessage: fc.Arbitrary<ServerMessage> = fc.oneof(
  fc.record({ type: fc.constant("http_request" as const), stream, instance_id: instance, port, has_body: fc.boolean(), headers: fc.array(header, { maxLength: 5 }),
    method: fc.oneof(fc.constantFrom("GET", "POST", "CONNECT", "TRACE", "get", "", " ", "G\nET"), text),
    path: fc.oneof(fc.constantFrom("/", "//x", "/../../etc/passwd", "*", "http://evil.example/", "/%00", "/health?x=\u0000"), text) }),
  fc.record({ type: fc.constant("ws_open" as const), stream, instance_id: instance, port, path: fc.oneof(fc.constant("/ws"), text), headers: fc.array(header, { maxLength: 5 }), protocols: fc.array(text, { maxLength: 3 }) }),
  fc.record({ type: fc.constant("logs_open" as const), stream, instance_id: instance, tail: fc.integer({ min: 1, max: 1000 }), follow: fc.boolean(), format: fc.constantFrom("text" as const, "events" as const) }),
  fc.record({ type: fc.constant("ssh_open" as const), stream, instance_id: instance, keys: fc.array(fc.record({ type: text, blob: text }), { maxLength: 3 }) }),
  fc.record({ type: fc.constant("terminal_open" as const), stream, instance_id: fc.constant(ABSENT), cols: fc.integer({ min: 1, max: 1000 }), rows: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({ type: fc.constant("files_open" as const), stream, instance_id: fc.constant(ABSENT), op: fc.constantFrom("get" as const, "put" as const), path: fc.constantFrom("/", "/data", "/../../etc") }),
  fc.record({ type: fc.constant("window" as const), stream, bytes: fc.oneof(fc.integer({ min: 1, max: 1 << 22 }), fc.constantFrom(2 ** 32, Number.MAX_SAFE_INTEGER, 1e300)) }),
  fc.record({ type: fc.constant("end" as const), stream }),
  fc.record({ type: fc.constant("abort" as const), stream, reason: text }),
  fc.record({ type: fc.constant("ws_close" as const), stream, code: fc.oneof(fc.constantFrom(1000, 1005, 1006, 1015, 0, -1, 2 ** 31, 70_000), fc.integer()), reason: text }),
);

type Sent = { message: ServerMessage } | { data: { kind: DataKind; stream: number; payload: Uint8Array } } | { raw: string | Uint8Array };

const sent: fc.Arbitrary<Sent> = fc.oneof(
  { arbitrary: validMessage.map((message) => ({ message })), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constantFrom(DataKind.body, DataKind.wsText, DataKind.wsBinary), stream, payload: fc.uint8Array({ maxLength: 2048 }) }).map((data) => ({ data })), weight: 4 },
  fc.oneof(
    fc.record({ type: fc.constantFrom("window", "http_request", "ws_close", "command"), stream: fc.constantFrom(0, -1, 2 ** 32, 1.5, "1", null), bytes: fc.constantFrom(0, -5, Number.NaN) }).map((raw) => ({ raw: JSON.stringify(raw) })),
    fc.uint8Array({ maxLength: 16 }).map((raw) => ({ raw })),
    fc.string({ maxLength: 40 }).map((raw) => ({ raw })),
  ),
);

describe("the agent against a misbehaving MachineDO", () => {
  let fake: FakeMachineDo;
  let agent: AgentChild;
  const stateDir = useTempDir("agent-mux-hostile-");

  beforeAll(async () => {
    fake = new FakeMachineDo("agent-secret");
    const server = await fake.listen();
    agent = startAgentChild(["--server", server, "--token", "agent-secret", "--runtime", "local", "--gpus", "rtx4090:1", "--state-dir", stateDir.path], {
      DEV_READY_DELAY_MS: "0",
      DEV_PULL_MS: "0",
    });
    await fake.waitFor("hello");
    fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 1, heartbeat_ms: 1000, settles_streams: true });
    fake.send({ type: "command", command_id: "c-create", op: "create", instance_id: ID, spec: testSpec(ID, { ports: [8000], http_ports: [{ port: 8000, path: "/health" }] }) });
    await fake.waitFor("ack", (m) => m.command_id === "c-create");
    await waitUntil(async () => ((await check()) === 200 ? true : undefined), "the instance's server ready");
  });
  afterAll(async () => {
    await agent?.stop();
    await fake?.close();
  });

  /** A request of a correct MachineDO's, on a stream of its own: its status, or why it failed (the agent's exit among the reasons). */
  async function check(): Promise<number | string> {
    const id = nextCheckStream++;
    sendHttpRequest(fake, id, ID, "/health");
    const exited = agent.exited.then((code) => `the agent exited with ${code}`);
    return Promise.race([streamOutcome(fake, id).then((outcome) => ("status" in outcome ? outcome.status : outcome.abort)), exited]);
  }

  it("still proxies after each sequence of hostile frames, and never exits", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sent, { minLength: 10, maxLength: 60 }), async (sequence) => {
        for (const frame of sequence) {
          if ("message" in frame) fake.send(frame.message);
          else if ("data" in frame) fake.sendData(frame.data.kind, frame.data.stream, frame.data.payload);
          else fake.sendRaw(frame.raw);
        }
        // Whatever the sequence left open is the MachineDO's to end, as a correct one would.
        for (let id = 1; id <= SEQUENCE_STREAMS; id++) fake.send({ type: "abort", stream: id, reason: "sequence over" });
        expect(await check()).toBe(200);
      }),
      { numRuns: 60, seed: SEED },
    );
    expect(agent.logs.filter((line) => line.level === "error")).toEqual([]);
  }, 180_000);
});
