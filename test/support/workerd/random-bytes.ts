// Bytes for the volume tests in workerd, where node:crypto's randomBytes is not at hand, and their digest.

/** `size` bytes that differ from one call to the next (getRandomValues fills at most 64 KiB a call). */
export function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let at = 0; at < size; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
  return bytes;
}

/** The SHA-256 of `bytes`, in hex. */
export async function hex(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
