// Identifiers and secrets in lowercase base32 (RFC 4648 alphabet), random ones from the platform CSPRNG.
// An instance id names the machine that hosts it, so a proxied request is routed without a lookup.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

export function randomBase32(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

/** `bytes` in base32, five bits a character, most significant first, without padding. */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + ALPHABET[(value << (5 - bits)) & 31] : out;
}

/** Instance ids carry their machine's id in 4 base32 characters: 20 bits. */
const MACHINE_CHARS = 4;
export const MAX_MACHINE_ID = 32 ** MACHINE_CHARS - 1;

/**
 * `i-` + 16 base32 characters: the first 4 are `machineId` (1 to MAX_MACHINE_ID), the other 12 random
 * (60 bits). Ids made before machines were encoded are 16 random characters, the same shape.
 */
export function newInstanceId(machineId: number): string {
  if (!Number.isInteger(machineId) || machineId < 1 || machineId > MAX_MACHINE_ID) {
    throw new RangeError(`machine id ${machineId} cannot be encoded in an instance id (1 to ${MAX_MACHINE_ID})`);
  }
  let machine = "";
  for (let rest = machineId, i = 0; i < MACHINE_CHARS; i++, rest = Math.floor(rest / 32)) machine = ALPHABET[rest % 32] + machine;
  return `i-${machine}${randomBase32(16 - MACHINE_CHARS)}`;
}

/**
 * The machine `id` names, or null when it is no instance id or names machine 0. An id made before
 * machines were encoded names a machine by chance: that machine does not know the instance.
 */
export function machineIdOfInstance(id: string): number | null {
  if (!/^i-[a-z2-7]{16}$/.test(id)) return null;
  let machineId = 0;
  for (const char of id.slice(2, 2 + MACHINE_CHARS)) machineId = machineId * 32 + ALPHABET.indexOf(char);
  return machineId === 0 ? null : machineId;
}

export const newAccountId = () => `acc-${randomBase32(16)}`;
/** A person: `usr-` + 16 base32 characters. */
export const newUserId = () => `usr-${randomBase32(16)}`;
export const newKeyId = () => `key-${randomBase32(12)}`;
export const newReferralCode = () => randomBase32(8).toUpperCase();
/** `vol_` + 16 base32 characters (protocol/volumes.ts VOLUME_ID_PATTERN). */
export const newVolumeId = () => `vol_${randomBase32(16)}`;
/** `snap_` + 16 base32 characters. */
export const newSnapshotId = () => `snap_${randomBase32(16)}`;
