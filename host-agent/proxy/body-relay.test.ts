// The relay's frames: pending reads gathered into frames of at most MAX_DATA_FRAME_BYTES and the
// credit, each built in one buffer with its header's room before the payload, so the connection
// frames it in place (frameInPlace) and the bytes arrive as the source gave them, in order.
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../protocol/messages.ts";
import { INITIAL_WINDOW_BYTES } from "../../protocol/mux/flow-control.ts";
import { DataKind, decodeDataFrame, frameInPlace, MAX_DATA_FRAME_BYTES } from "../../protocol/mux/frames.ts";
import { BodyRelay } from "./body-relay.ts";
import type { StreamTransport } from "./stream-transport.ts";

const STREAM = 7;

/** Frames each payload as the agent's connection does, then decodes it as the MachineDO does. */
class FramingTransport implements StreamTransport {
  payloads: Buffer[] = [];
  ended = false;
  send(message: AgentMessage): void {
    if (message.type === "end") this.ended = true;
  }
  sendFrame(): void {
    expect.fail("only a proxied HTTP response is sent as a response frame");
  }
  sendData(kind: DataKind, stream: number, payload: Uint8Array, headroom?: boolean): void {
    expect(headroom).toBe(true);
    const frame = decodeDataFrame(frameInPlace(kind, stream, payload));
    if ("error" in frame) throw new Error(frame.error);
    expect([frame.kind, frame.stream]).toEqual([DataKind.body, STREAM]);
    this.payloads.push(Buffer.from(frame.payload));
  }
  congested = () => false;
  whenUncongested(callback: () => void): void {
    callback();
  }
}

/** Relays `chunks` until `end`, granting `credit` more every millisecond (none: the initial window alone). */
async function relay(chunks: Buffer[], credit = 0): Promise<FramingTransport> {
  const transport = new FramingTransport();
  const relay = new BodyRelay(STREAM, transport);
  const finished = new Promise<void>((resolve, reject) => relay.start(Readable.from(chunks), { onFinished: resolve, onFailed: (reason) => reject(new Error(reason)) }));
  if (credit > 0) {
    const granting = setInterval(() => relay.grant(credit), 1);
    await finished.finally(() => clearInterval(granting));
  } else {
    await finished;
  }
  expect(transport.ended).toBe(true);
  return transport;
}

describe("the body relay's frames", () => {
  it("carry the source's bytes in order, in frames of at most MAX_DATA_FRAME_BYTES, each framed where it was gathered", async () => {
    // Reads that share one buffer, as a stream may hand them out: the relay leaves that buffer as it was.
    const source = Buffer.concat(Array.from({ length: 12 }, (_, i) => Buffer.alloc(200 * 1024 + i, i + 1)));
    const copy = Buffer.from(source);
    const chunks = Array.from({ length: 12 }, (_, i) => source.subarray(i * 200 * 1024 + (i * (i - 1)) / 2, (i + 1) * 200 * 1024 + (i * (i + 1)) / 2));
    const transport = await relay(chunks, INITIAL_WINDOW_BYTES);
    expect(Buffer.concat(transport.payloads).equals(copy)).toBe(true);
    // No header was written into the source's own buffer, and it was not released.
    expect(source.equals(copy)).toBe(true);
    expect(Math.max(...transport.payloads.map((p) => p.byteLength))).toBeLessThanOrEqual(MAX_DATA_FRAME_BYTES);
    expect(transport.payloads.length).toBeLessThan(chunks.length);
  });

  it("release each read whose buffer it has to itself once it is copied into a frame, and no other", async () => {
    const whole = [1, 2, 3, 4].map((fill) => Buffer.alloc(64 * 1024, fill));
    const pooled = Buffer.from("pooled");
    const expected = Buffer.concat([...whole, pooled]);
    const transport = await relay([...whole, pooled]);
    expect(Buffer.concat(transport.payloads).equals(expected)).toBe(true);
    expect(whole.map((read) => read.buffer.detached)).toEqual([true, true, true, true]);
    expect(pooled.toString()).toBe("pooled");
  });

  it("split a read across frames where the credit ends, and skip empty reads", async () => {
    const chunks = [Buffer.from("abc"), Buffer.alloc(0), Buffer.alloc(INITIAL_WINDOW_BYTES + 10, 9), Buffer.from("xyz")];
    const expected = Buffer.concat(chunks);
    const transport = await relay(chunks, 1024 * 1024);
    expect(Buffer.concat(transport.payloads).equals(expected)).toBe(true);
    expect(transport.payloads.every((p) => p.byteLength > 0 && p.byteLength <= MAX_DATA_FRAME_BYTES)).toBe(true);
  });
});
