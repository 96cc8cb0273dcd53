// What `GET /bytes` sends: bytes that differ at every position, so a piece dropped, doubled or
// reordered anywhere on the way changes their SHA-256, and a test can compare a whole download
// with the digest the server reports (`GET /bytes/sha256`). Block i (64 KiB) is one of a pool of
// pseudo-random blocks, chosen by i, with i written into its first 4 bytes: cheap to send at
// gigabytes, and no two blocks alike.
import { createHash } from "node:crypto";

export const BLOCK_BYTES = 64 * 1024;
const POOL_BLOCKS = 61;
let pool: Buffer[] | null = null;

/** The pool, from a fixed seed (xorshift32): the same bytes in every process. */
function blocks(): Buffer[] {
  if (pool) return pool;
  let state = 0x9e3779b9;
  pool = Array.from({ length: POOL_BLOCKS }, () => {
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    for (let i = 0; i < BLOCK_BYTES; i += 4) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      block.writeInt32LE(state | 0, i);
    }
    return block;
  });
  return pool;
}

/** Block `index` of the payload, whole (the payload's last block is its first bytes); a fresh buffer. */
export function payloadBlock(index: number): Buffer {
  const block = Buffer.from(blocks()[(index * 7 + 3) % POOL_BLOCKS]!);
  block.writeUInt32LE(index >>> 0, 0);
  return block;
}

/** The SHA-256 (hex) of the payload's first `count` bytes. */
export function payloadSha256(count: number): string {
  const hash = createHash("sha256");
  for (let index = 0, left = count; left > 0; index++, left -= BLOCK_BYTES) {
    const block = payloadBlock(index);
    hash.update(left >= BLOCK_BYTES ? block : block.subarray(0, left));
  }
  return hash.digest("hex");
}
