// The buffers request bodies are read into, with real byte streams in workerd: a body starts small,
// steps up only while its reads fill its buffer and the budget has room, steps down when they do not,
// and gives back what it took however it ends.
import { describe, expect, it } from "vitest";
import { DATA_HEADER_BYTES, MAX_DATA_FRAME_BYTES } from "../../protocol/index.ts";
import {
  ACCOUNT_READ_BUFFER_BYTES, MACHINE_READ_BUFFER_BYTES, readChunks, ReadBufferBudget, SMALL_READ_BYTES, STEP_DOWN_READS, type ReadRoom,
} from "./body-reads.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

/** A byte stream that hands out `pieces` one per pull (each of that many bytes), then ends. */
function body(pieces: number[]): ReadableStream<Uint8Array> {
  const left = [...pieces];
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const size = left.shift();
      if (size === undefined) return controller.close();
      controller.enqueue(new Uint8Array(size));
    },
  });
}

/** The size of the buffer each chunk was read into, and the budget's room held while it was in hand. */
async function reads(stream: ReadableStream<Uint8Array>, room: ReadRoom, budget: ReadBufferBudget, stopAfter = Infinity) {
  const seen: { buffer: number; bytes: number; held: number }[] = [];
  for await (const { bytes } of readChunks(stream, room)) {
    seen.push({ buffer: bytes.buffer.byteLength - DATA_HEADER_BYTES, bytes: bytes.byteLength, held: budget.held() });
    if (seen.length >= stopAfter) break;
  }
  return seen;
}

describe("reading request bodies", () => {
  it("starts small and steps up to a whole frame while reads fill the buffer, then gives the room back", async () => {
    const budget = new ReadBufferBudget();
    const seen = await reads(body([8 * MiB]), budget.roomFor("acc_a"), budget);
    expect(seen.slice(0, 5).map((read) => read.buffer)).toEqual([SMALL_READ_BYTES, 64 * KiB, 256 * KiB, MAX_DATA_FRAME_BYTES, MAX_DATA_FRAME_BYTES]);
    expect(seen.every((read) => read.bytes === read.buffer || read === seen.at(-1))).toBe(true);
    expect(seen.reduce((sum, read) => sum + read.bytes, 0)).toBe(8 * MiB);
    expect(seen.at(-1)!.held).toBe(MAX_DATA_FRAME_BYTES);
    expect(budget.held()).toBe(0);
  });

  it("keeps a body that sends slowly in its small buffer, outside the budget", async () => {
    const budget = new ReadBufferBudget();
    const seen = await reads(body(Array(50).fill(KiB)), budget.roomFor("acc_a"), budget);
    expect(seen).toHaveLength(50);
    expect(new Set(seen.map((read) => [read.buffer, read.held].join()))).toEqual(new Set([`${SMALL_READ_BYTES},0`]));
  });

  it("steps back down after reads in a row use under a sixteenth of the buffer, giving that room back as it does", async () => {
    const budget = new ReadBufferBudget();
    const short = Array(STEP_DOWN_READS - 1).fill(2 * KiB);
    // A read that uses more than a sixteenth starts the count again.
    const seen = await reads(body([2 * MiB, ...short, 200 * KiB, ...short, ...Array(3 * STEP_DOWN_READS + 1).fill(2 * KiB)]), budget.roomFor("acc_a"), budget);
    const steps = seen.filter((read, i) => i === 0 || read.buffer !== seen[i - 1]!.buffer);
    expect(steps.map((read) => [read.buffer, read.held])).toEqual([
      [SMALL_READ_BYTES, 0], [64 * KiB, 64 * KiB], [256 * KiB, 256 * KiB], [MAX_DATA_FRAME_BYTES, MAX_DATA_FRAME_BYTES],
      [256 * KiB, 256 * KiB], [64 * KiB, 64 * KiB], [SMALL_READ_BYTES, 0],
    ]);
    const atFull = seen.filter((read) => read.buffer === MAX_DATA_FRAME_BYTES && read.bytes < MAX_DATA_FRAME_BYTES / 16);
    expect(atFull).toHaveLength(2 * STEP_DOWN_READS - 1);
  });

  it("goes on in small reads past its account's bound, and past the host's, while others' bodies still step up", async () => {
    const budget = new ReadBufferBudget();
    expect(budget.roomFor("acc_a").take(ACCOUNT_READ_BUFFER_BYTES)).toBe(true);
    const full = await reads(body([MiB]), budget.roomFor("acc_a"), budget);
    expect(full.map((read) => read.buffer)).toEqual(Array(MiB / SMALL_READ_BYTES).fill(SMALL_READ_BYTES));
    const other = await reads(body([MiB]), budget.roomFor("acc_b"), budget);
    expect(other.slice(0, 3).map((read) => read.buffer)).toEqual([SMALL_READ_BYTES, 64 * KiB, 256 * KiB]);

    expect(budget.roomFor("acc_c").take(MACHINE_READ_BUFFER_BYTES - ACCOUNT_READ_BUFFER_BYTES)).toBe(true);
    const third = await reads(body([MiB]), budget.roomFor("acc_d"), budget);
    expect(new Set(third.map((read) => read.buffer))).toEqual(new Set([SMALL_READ_BYTES]));
    expect(budget.held()).toBe(MACHINE_READ_BUFFER_BYTES);
  });

  it("gives the room back when the reader stops early, and when the body breaks off", async () => {
    const budget = new ReadBufferBudget();
    const stopped = await reads(body([4 * MiB]), budget.roomFor("acc_a"), budget, 4);
    expect(stopped.at(-1)!.held).toBe(MAX_DATA_FRAME_BYTES);
    expect(budget.held()).toBe(0);

    let pulls = 0;
    const breaking = new ReadableStream({
      type: "bytes",
      pull(controller) {
        if (++pulls > 4) return controller.error(new Error("the client went away"));
        controller.enqueue(new Uint8Array(MiB));
      },
    });
    await expect(reads(breaking, budget.roomFor("acc_a"), budget)).rejects.toThrow("the client went away");
    expect(budget.held()).toBe(0);
  });

  it("releases each chunk's buffer as the next is asked for, the bytes as sent", async () => {
    const budget = new ReadBufferBudget();
    const pieces = [8 * KiB, 16 * KiB, 3 * KiB];
    let pulls = 0;
    const numbered = new ReadableStream({
      type: "bytes",
      pull(controller) {
        const size = pieces[pulls++];
        if (size === undefined) return controller.close();
        controller.enqueue(new Uint8Array(size).fill(pulls));
      },
    });
    const chunks: Uint8Array[] = [];
    for await (const { bytes } of readChunks(numbered, budget.roomFor("acc_a"))) {
      expect(chunks.map((chunk) => (chunk.buffer as ArrayBuffer).detached)).toEqual(chunks.map(() => true));
      expect([...new Set(bytes), bytes.byteLength]).toEqual([chunks.length + 1, pieces[chunks.length]]);
      chunks.push(bytes);
    }
    expect(chunks.map((chunk) => (chunk.buffer as ArrayBuffer).detached)).toEqual([true, true, true]);
  });
});
