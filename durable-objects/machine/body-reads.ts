// The buffers the MachineDO reads clients' request bodies into on their way to the agent. A body is
// read into a buffer of its own, which it holds while a read waits for the client and while what was
// read waits for the agent's credit; and one object carries every stream of every tenant on the
// host, with 128 MB. A buffer of a whole frame (1 MiB) for every body let an account's 200 streams
// hold 200 MiB by sending slowly, and made 64 small chat requests take 64 MiB for a moment. So a body
// starts with a small buffer, bounded in all by the caps on open streams (stream-quota.ts), and a
// bigger one is taken only when reads fill the one it has (the client sends faster than this end
// reads), within a budget per account on this host and in all; past it the body goes on in small
// reads. Reads that keep using little of a buffer step it back down, giving the room back.
//
// The MachineDO alone holds these buffers (in its memory), so its count is exact.
import { DATA_HEADER_BYTES, MAX_DATA_FRAME_BYTES, release } from "../../protocol/index.ts";
import { AccountTotals } from "./account-totals.ts";

/** The buffer every body starts with: a small request's body in one read. */
export const SMALL_READ_BYTES = 16 * 1024;
/** The sizes a body's buffer steps through as its reads fill them, to a whole frame. */
export const READ_SIZES = [SMALL_READ_BYTES, 64 * 1024, 256 * 1024, MAX_DATA_FRAME_BYTES] as const;
/** Reads in a row that use under a sixteenth of a body's buffer before it steps down. */
export const STEP_DOWN_READS = 8;
/** One account's bodies on this host together, in buffers bigger than the small one: four at full size. */
export const ACCOUNT_READ_BUFFER_BYTES = 4 * 1024 * 1024;
/** Every body on this host together, in buffers bigger than the small one. */
export const MACHINE_READ_BUFFER_BYTES = 8 * 1024 * 1024;

/** Room for one body's buffers: taken whole or not at all, given back exactly. */
export interface ReadRoom {
  take(bytes: number): boolean;
  give(bytes: number): void;
}

export class ReadBufferBudget {
  readonly #held = new AccountTotals();

  /** The room of a body of `accountId`'s. */
  roomFor(accountId: string): ReadRoom {
    return {
      take: (bytes) => {
        if (this.#held.of(accountId) + bytes > ACCOUNT_READ_BUFFER_BYTES || this.#held.of() + bytes > MACHINE_READ_BUFFER_BYTES) return false;
        this.#held.change(accountId, bytes);
        return true;
      },
      give: (bytes) => this.#held.change(accountId, -bytes),
    };
  }

  /** The bytes of buffers bigger than the small one: in all, or of one account. */
  held(accountId?: string): number {
    return this.#held.of(accountId);
  }
}

/**
 * The body's chunks. A default reader yields 4 KB chunks (a frame, an agent event and an upstream
 * write each); a BYOB read takes whatever has arrived, up to the buffer's size, into a buffer of its
 * own with room for the frame header before the data. Each chunk is valid until the next is asked
 * for (sending copies it before then): its buffer is released then (protocol/mux/buffer-release.ts). A buffer
 * reused read after read did not keep the process small: a fresh stack's Worker process grew 43-52
 * MB during a 512 MB upload, against 19-21 MB with a buffer a read, released (the bench's memory
 * suite, two runs each). What `room` gave is given back as the body ends, whichever way.
 */
export async function* readChunks(body: ReadableStream<Uint8Array>, room: ReadRoom): AsyncGenerator<{ bytes: Uint8Array; headroom: boolean }> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: read it as it comes.
  }
  if (!byob) {
    for await (const chunk of body) yield { bytes: chunk, headroom: false };
    return;
  }
  const size = new BufferSize(room);
  try {
    for (;;) {
      const { done, value } = await byob.read(new Uint8Array(new ArrayBuffer(DATA_HEADER_BYTES + size.bytes), DATA_HEADER_BYTES, size.bytes));
      if (done || !value) return;
      yield { bytes: value, headroom: true };
      size.fitTo(value.byteLength);
      release(value);
    }
  } finally {
    size.release();
    byob.cancel().catch(() => undefined);
  }
}

/**
 * One body's buffer size: a step up when a read filled it and the room allows, a step down after
 * STEP_DOWN_READS reads in a row used under a sixteenth of it. A fast upload's reads vary in size,
 * and stepping down at the first short one made it step down and up again every few reads (then
 * each step was a new buffer, and a buffer was otherwise reused): 15% more of the Worker's CPU per
 * MB uploaded.
 */
class BufferSize {
  readonly #room: ReadRoom;
  #step = 0;
  #underused = 0;

  constructor(room: ReadRoom) {
    this.#room = room;
  }

  get bytes(): number {
    return READ_SIZES[this.#step]!;
  }

  /** Steps the size for the next read, after one of `read` bytes. */
  fitTo(read: number): void {
    const size = this.bytes;
    this.#underused = read < size / 16 ? this.#underused + 1 : 0;
    if (read === size && this.#step + 1 < READ_SIZES.length && this.#room.take(counted(this.#step + 1) - counted(this.#step))) {
      this.#step++;
      return;
    }
    if (this.#underused < STEP_DOWN_READS || this.#step === 0) return;
    this.#room.give(counted(this.#step) - counted(this.#step - 1));
    this.#step--;
    this.#underused = 0;
  }

  /** The body is done: what its buffer took goes back. */
  release(): void {
    this.#room.give(counted(this.#step));
    this.#step = 0;
  }
}

/** What a buffer at `step` takes from the budget: the small one nothing. */
function counted(step: number): number {
  return step === 0 ? 0 : READ_SIZES[step]!;
}
