// The agent's connection in-process against the fake MachineDO: what it does with a data frame's
// buffer once the socket has written it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATA_HEADER_BYTES, DataKind } from "../protocol/mux/frames.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { waitUntil } from "../test/support/agent/wait-until.ts";
import { AgentConnection } from "./agent-connection.ts";
import { Backoff } from "./backoff.ts";
import { createLogger } from "./log.ts";

let fake: FakeMachineDo;
let connection: AgentConnection;

beforeAll(async () => {
  fake = new FakeMachineDo("connection-secret");
  const server = await fake.listen();
  connection = new AgentConnection({
    url: `${server.replace("http:", "ws:")}/agent/v1/connect`, token: "connection-secret", backoff: new Backoff({ baseMs: 50, capMs: 100 }), log: createLogger(() => {}),
    buildHello: async () => ({
      type: "hello", protocol: PROTOCOL_VERSION, agent_version: "test", runtime: "local", hostname: "test", driver_version: "", cuda_version: "",
      gpus: [], containers: [], cached_models: [],
    }),
    onMessage: () => {}, onData: () => {}, onDisconnect: () => {}, onStreamFault: () => {},
  });
  connection.start();
  await fake.waitFor("hello");
});
afterAll(async () => {
  await connection?.close();
  await fake?.close();
});

describe("the agent's connection", () => {
  it("releases a frame's buffer once the socket has written it, and leaves one that holds anything else", async () => {
    const whole = Buffer.alloc(DATA_HEADER_BYTES + 256 * 1024, 7);
    const pooled = Buffer.from("12345pooled");
    connection.sendData(DataKind.body, 1, whole.subarray(DATA_HEADER_BYTES), true);
    connection.sendData(DataKind.body, 2, pooled.subarray(DATA_HEADER_BYTES), true);
    const frames = await waitUntil(() => {
      const data = fake.received.flatMap((r) => ("frame" in r ? [r.frame] : []));
      return data.length === 2 ? data : undefined;
    }, "both frames");
    expect(frames.map((frame) => [frame.stream, frame.payload.byteLength])).toEqual([[1, 256 * 1024], [2, 6]]);
    expect(frames[0]!.payload.every((byte) => byte === 7)).toBe(true);
    expect(Buffer.from(frames[1]!.payload).toString()).toBe("pooled");
    await waitUntil(() => (whole.buffer.detached ? true : undefined), "the whole frame's buffer released");
    expect(pooled.buffer.detached).toBe(false);
  });
});
