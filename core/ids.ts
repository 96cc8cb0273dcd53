// Random identifiers and secrets: lowercase base32 from the platform CSPRNG.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

export function randomBase32(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

export const newInstanceId = () => `i-${randomBase32(16)}`;
export const newAccountId = () => `acc-${randomBase32(16)}`;
export const newKeyId = () => `key-${randomBase32(12)}`;
export const newReferralCode = () => randomBase32(8).toUpperCase();
