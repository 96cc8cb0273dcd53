// Parts of a resumable upload through the agent's files stream, as the MachineDO sends them (files_open,
// body frames, end), into the local runtime's real folders: a part answers 202 with upload-offset and
// an empty body, the final part writes the file and answers 204, and a refusal (past the room) waits
// for the part's whole body before it answers, so the client sees it rather than a broken connection;
// a part past the host's room keeps what arrived and says so.
// A download's archive, read from `tar` in small pieces, goes in frames of at least 512 KiB but its last.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage, ServerMessage } from "../../protocol/messages.ts";
import { DataKind } from "../../protocol/mux/frames.ts";
import { NODE_BINARY } from "../../test/support/agent/node-binary.ts";
import { testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { LocalRuntime } from "../dev/local-runtime.ts";
import { UploadStaging } from "../files/upload-staging.ts";
import { createLogger } from "../log.ts";
import { ProxyStreams } from "./proxy-streams.ts";
import type { StreamTransport } from "./stream-transport.ts";

const ID = "i-filesstream23456";
const state = useTempDir("files-stream-");
let runtime: LocalRuntime;

class RecordingTransport implements StreamTransport {
  messages: AgentMessage[] = [];
  body = new Map<number, Buffer>();
  frameBytes: number[] = [];
  send(message: AgentMessage): void {
    this.messages.push(message);
  }
  sendFrame(): void {
    expect.fail("only a proxied HTTP response is sent as a response frame");
  }
  sendData(_kind: DataKind, stream: number, payload: Uint8Array): void {
    this.frameBytes.push(payload.byteLength);
    this.body.set(stream, Buffer.concat([this.body.get(stream) ?? Buffer.alloc(0), payload]));
  }
  congested = () => false;
  whenUncongested(callback: () => void): void {
    callback();
  }
  /** The stream's head, once its answer is complete (its `end`, or a 204's head alone). */
  async answer(stream: number): Promise<{ status: number; headers: [string, string][]; body: string }> {
    const head = await waitUntil(() => this.messages.find((m) => m.type === "http_response" && m.stream === stream), `head of ${stream}`);
    if (head.type !== "http_response") throw new Error("not a head");
    if (head.status !== 204) await waitUntil(() => this.messages.find((m) => m.type === "end" && m.stream === stream), `end of ${stream}`);
    return { status: head.status, headers: head.headers, body: this.body.get(stream)?.toString() ?? "" };
  }
}

beforeAll(async () => {
  runtime = new LocalRuntime({ stateDir: state.path, readyDelayMs: 0, pullMs: 0, nodePath: NODE_BINARY });
  await runtime.create(testSpec(ID), () => {});
});
afterAll(() => runtime.close());

/** One upload per path: a written upload's id answers with its size for an hour, so each case has its own. */
const uploadIdFor = (path: string) => `files-stream-${path.replace(/[^A-Za-z0-9]/g, "-")}`;

function setUp(staging = new UploadStaging(join(state.path, "uploads"))) {
  const transport = new RecordingTransport();
  const streams = new ProxyStreams({ resolvePort: async () => null, logs: async () => null, exec: async () => null }, transport, createLogger(() => {}), undefined, null, runtime, staging);
  /** Opens a part and sends its body in `chunks`, then `end` unless told not to. */
  const part = (stream: number, path: string, offset: number, final: boolean, maxBytes: number, chunks: string[], end = true) => {
    const open: ServerMessage = { type: "files_open", stream, instance_id: ID, op: "put", path, upload: { id: uploadIdFor(path), offset, final, max_bytes: maxBytes } };
    streams.openFiles(open as Extract<ServerMessage, { type: "files_open" }>);
    for (const chunk of chunks) streams.receiveData({ kind: DataKind.body, stream, payload: Buffer.from(chunk) });
    if (end) streams.receive({ type: "end", stream });
  };
  return { transport, streams, part };
}

describe("files stream: an upload's parts", () => {
  it("answers a part 202 with upload-offset and an empty body; the final part writes the file into /data and answers 204", async () => {
    const { transport, part } = setUp();
    part(1, "/data/greeting.txt", 0, false, 1000, ["hello ", "big "]);
    expect(await transport.answer(1)).toEqual({ status: 202, headers: [["upload-offset", "10"]], body: "" });
    part(2, "/data/greeting.txt", 0, false, 1000, ["again"]);
    const wrong = await transport.answer(2);
    expect(wrong).toMatchObject({ status: 409, headers: [["content-type", "application/json"], ["upload-offset", "10"]] });
    expect(JSON.parse(wrong.body)).toEqual({ error: "conflict", message: `upload ${uploadIdFor("/data/greeting.txt")} has 10 bytes staged, not 0: send the part from offset 10` });
    part(3, "/data/greeting.txt", 10, true, 1000, ["world\n"]);
    expect(await transport.answer(3)).toEqual({ status: 204, headers: [], body: "" });
    expect(await readFile(join(state.path, "containers", ID, "data", "greeting.txt"), "utf8")).toBe("hello big world\n");
  });

  it("answers a part past the room 413 only once its whole body has arrived, keeping nothing of the upload", async () => {
    const { transport, part, streams } = setUp();
    part(4, "/data/huge.bin", 0, false, 8, ["0123456789"], false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(transport.messages.filter((m) => "stream" in m && m.stream === 4 && m.type !== "window")).toEqual([]);
    streams.receiveData({ kind: DataKind.body, stream: 4, payload: Buffer.from("more") });
    streams.receive({ type: "end", stream: 4 });
    const refused = await transport.answer(4);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toEqual({ error: "payload_too_large", message: "the instance's uploads would stage more than its disk (8 bytes): nothing of this upload is kept" });
    part(5, "/data/huge.bin", 3, false, 8, ["x"]);
    expect((await transport.answer(5)).headers).toContainEqual(["upload-offset", "0"]);
  });

  it("answers a part past the host's room 413 with what is staged, which a later part resumes from", async () => {
    const { transport, part } = setUp(new UploadStaging(join(state.path, "host-room"), { hostBytes: 6 }));
    part(7, "/data/crowded.bin", 0, false, 1000, ["0123", "4567"]);
    const refused = await transport.answer(7);
    expect(refused).toMatchObject({ status: 413, headers: [["content-type", "application/json"], ["upload-offset", "4"]] });
    expect(JSON.parse(refused.body)).toEqual({
      error: "payload_too_large",
      message: `the host has no room to stage uploads now (its uploads stage 4 bytes together, and it takes at most 6): upload ${uploadIdFor("/data/crowded.bin")} has 4 bytes staged; send the rest from there later (an upload untouched for an hour is removed)`,
    });
    part(8, "/data/crowded.bin", 4, false, 1000, ["45"]);
    expect(await transport.answer(8)).toEqual({ status: 202, headers: [["upload-offset", "6"]], body: "" });
  });

  it("refuses a part into a directory that is not there with 404, before staging anything", async () => {
    const { transport, part } = setUp();
    part(6, "/data/nowhere/x.bin", 0, true, 1000, ["x"]);
    const missing = await transport.answer(6);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: "not_found", message: "no directory /data/nowhere in the instance to write x.bin into" });
  });
});

describe("files stream: a download", () => {
  it("sends the archive in frames of at least 512 KiB but the last, and it unpacks to the file", async () => {
    const content = randomBytes(3 * 1024 * 1024 + 5);
    await writeFile(join(state.path, "containers", ID, "data", "weights.bin"), content);
    const { transport, streams } = setUp();
    streams.openFiles({ type: "files_open", stream: 8, instance_id: ID, op: "get", path: "/data/weights.bin" });
    const answer = await transport.answer(8);
    expect(answer.status).toBe(200);
    const archive = transport.body.get(8)!;
    expect(execFileSync("tar", ["-xO", "weights.bin"], { input: archive, maxBuffer: 8 * 1024 * 1024 }).equals(content)).toBe(true);
    expect(transport.frameBytes.slice(0, -1).every((bytes) => bytes >= 512 * 1024)).toBe(true);
    expect(transport.frameBytes.length).toBeLessThanOrEqual(Math.ceil(archive.byteLength / (512 * 1024)));
  });
});
