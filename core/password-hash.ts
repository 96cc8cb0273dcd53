// Password hashing: salted PBKDF2-HMAC-SHA256 through WebCrypto. Each stored hash keeps its own
// algorithm, iteration count and salt, so the parameters can be raised later: a hash made with
// lower ones is re-made at the next successful sign-in.
import { constantTimeEqual } from "./hash.ts";

export const PASSWORD_ALGORITHM = "PBKDF2-SHA256";
/**
 * The most the Workers runtime accepts: production workerd refuses deriveBits above 100,000
 * iterations ("Pbkdf2 failed: iteration counts above 100000 are not supported"). The open-source
 * workerd that `wrangler dev` and the tests run has no such cap, so `deriveHash` enforces it here
 * too: what passes locally passes in production.
 */
export const PASSWORD_ITERATIONS = 100_000;
export const RUNTIME_MAX_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

export interface PasswordHash {
  algorithm: string;
  iterations: number;
  /** Hex. */
  salt: string;
  /** Hex. */
  hash: string;
}

const encoder = new TextEncoder();
const toHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (hex: string) => new Uint8Array((hex.match(/../g) ?? []).map((pair) => parseInt(pair, 16)));

async function deriveHash(password: string, salt: Uint8Array, iterations: number): Promise<string> {
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > RUNTIME_MAX_ITERATIONS) {
    throw new RangeError(`PBKDF2 iterations must be 1 to ${RUNTIME_MAX_ITERATIONS}, not ${iterations}`);
  }
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return toHex(new Uint8Array(bits));
}

/** A new salted hash of `password` with the current parameters. */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return { algorithm: PASSWORD_ALGORITHM, iterations: PASSWORD_ITERATIONS, salt: toHex(salt), hash: await deriveHash(password, salt, PASSWORD_ITERATIONS) };
}

/** Whether `password` matches `stored`, compared in constant time. Unusable stored parameters never match. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  if (stored.algorithm !== PASSWORD_ALGORITHM) return false;
  const derived = await deriveHash(password, fromHex(stored.salt), stored.iterations).catch(() => null);
  return derived !== null && constantTimeEqual(derived, stored.hash);
}

/** Whether a stored hash was made with fewer iterations than today's. */
export const needsRehash = (stored: PasswordHash) => stored.iterations < PASSWORD_ITERATIONS;

/**
 * Checked when there is no real hash to check against (an unknown email), so that answer costs
 * the same work as a wrong password. It matches no password: its hash is not a PBKDF2 output.
 */
export const DUMMY_PASSWORD_HASH: PasswordHash = {
  algorithm: PASSWORD_ALGORITHM,
  iterations: PASSWORD_ITERATIONS,
  salt: "00".repeat(SALT_BYTES),
  hash: "",
};
