// Binary data frames: round trips of every kind, and short, unknown or stream-0 frames rejected.
import { describe, expect, it } from "vitest";
import { INITIAL_WINDOW_BYTES } from "./flow-control.ts";
import { DATA_HEADER_BYTES, DataKind, decodeDataFrame, encodeDataFrame, frameInPlace, MAX_WS_MESSAGE_BYTES } from "./frames.ts";

describe("data frames", () => {
  it.each([
    ["body", DataKind.body],
    ["wsText", DataKind.wsText],
    ["wsBinary", DataKind.wsBinary],
  ])("round-trips a %s frame", (_, kind) => {
    const payload = new Uint8Array([0, 255, 7, 42]);
    const frame = encodeDataFrame(kind, 0xdeadbeef, payload);
    expect(frame.byteLength).toBe(DATA_HEADER_BYTES + payload.byteLength);
    expect(Array.from(frame.subarray(0, 5))).toEqual([kind, 0xde, 0xad, 0xbe, 0xef]);
    expect(decodeDataFrame(frame)).toEqual({ kind, stream: 0xdeadbeef, payload });
  });

  it("round-trips an empty payload", () => {
    expect(decodeDataFrame(encodeDataFrame(DataKind.body, 1, new Uint8Array()))).toEqual({ kind: DataKind.body, stream: 1, payload: new Uint8Array() });
  });

  it("decodes a frame that sits at an offset inside a larger buffer", () => {
    const backing = new Uint8Array(64);
    backing.set(encodeDataFrame(DataKind.wsText, 9, new TextEncoder().encode("hi")), 10);
    const decoded = decodeDataFrame(backing.subarray(10, 17));
    expect(decoded).toEqual({ kind: DataKind.wsText, stream: 9, payload: new TextEncoder().encode("hi") });
  });

  it.each([
    ["an empty frame", [], "data frame of 0 bytes is shorter than its header"],
    ["a frame shorter than its header", [1, 0, 0, 1], "data frame of 4 bytes is shorter than its header"],
    ["an unknown kind", [9, 0, 0, 0, 1], "data frame kind 9 is unknown"],
    ["kind 0", [0, 0, 0, 0, 1], "data frame kind 0 is unknown"],
    ["stream 0", [1, 0, 0, 0, 0, 5], "data frame for stream 0"],
  ])("rejects %s", (_, bytes, error) => {
    expect(decodeDataFrame(new Uint8Array(bytes))).toEqual({ error });
  });

  it("carries the largest WebSocket message in one frame of 1 MiB, the most a Worker receives, within one window", () => {
    const frame = encodeDataFrame(DataKind.wsBinary, 1, new Uint8Array(MAX_WS_MESSAGE_BYTES));
    expect(frame.byteLength).toBe(1024 * 1024);
    expect(MAX_WS_MESSAGE_BYTES).toBeLessThanOrEqual(INITIAL_WINDOW_BYTES);
  });
});

describe("frameInPlace", () => {
  it("writes the header into the room before the payload, sharing its bytes", () => {
    const buffer = new ArrayBuffer(DATA_HEADER_BYTES + 4);
    const payload = new Uint8Array(buffer, DATA_HEADER_BYTES, 4);
    payload.set([9, 8, 7, 6]);
    const frame = frameInPlace(DataKind.body, 77, payload);
    expect(frame.buffer).toBe(buffer);
    expect(decodeDataFrame(frame)).toEqual({ kind: DataKind.body, stream: 77, payload: new Uint8Array([9, 8, 7, 6]) });
    expect(frame).toEqual(encodeDataFrame(DataKind.body, 77, new Uint8Array([9, 8, 7, 6])));
  });

  it("refuses a payload without room for the header", () => {
    expect(() => frameInPlace(DataKind.body, 1, new Uint8Array(4))).toThrow(RangeError);
  });
});
