// Which buffers releaseWhole releases: only one a frame has to itself.
import { describe, expect, it } from "vitest";
import { DATA_HEADER_BYTES } from "./frames.ts";
import { releaseWhole } from "./buffer-release.ts";

describe("releaseWhole", () => {
  it("releases a buffer the view spans whole, with its header ahead of it", () => {
    const frame = Buffer.alloc(DATA_HEADER_BYTES + 64 * 1024);
    releaseWhole(frame);
    expect(frame.buffer.detached).toBe(true);
    const message = Buffer.alloc(DATA_HEADER_BYTES + 64 * 1024);
    releaseWhole(message.subarray(DATA_HEADER_BYTES), DATA_HEADER_BYTES);
    expect(message.buffer.detached).toBe(true);
  });

  it("leaves a buffer that holds anything else: Node's shared pool, a slice of a bigger read", () => {
    const pooled = Buffer.from("a small message");
    releaseWhole(pooled);
    expect(pooled.buffer.detached).toBe(false);
    const read = Buffer.alloc(128 * 1024);
    releaseWhole(read.subarray(0, 64 * 1024));
    releaseWhole(read.subarray(DATA_HEADER_BYTES), 0);
    releaseWhole(read.subarray(DATA_HEADER_BYTES, -1), DATA_HEADER_BYTES);
    expect(read.buffer.detached).toBe(false);
  });
});
