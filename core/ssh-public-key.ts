// An OpenSSH public key line (`ssh-ed25519 AAAA… comment`, as in id_ed25519.pub), read without any
// SSH library so the Worker, the CLI and the agent agree on it: the type, the wire-format blob
// checked against that type, and the fingerprint as `ssh-keygen -l` prints it.
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";

export const SSH_KEY_TYPES = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa"] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

/** RSA keys shorter than this are refused as weak. */
export const MIN_RSA_BITS = 2048;

export interface SshPublicKey {
  type: SshKeyType;
  /** The key's blob, base64, as on the line. */
  blob: string;
  comment: string;
}

/** Why a line is not an acceptable key, or the key. */
export type ParsedKey = { ok: true; key: SshPublicKey } | { ok: false; rule: string };

/** ECDSA curve name and the length of its uncompressed point (0x04 ‖ x ‖ y). */
const EC_POINT_BYTES: Record<string, [string, number]> = {
  "ecdsa-sha2-nistp256": ["nistp256", 65],
  "ecdsa-sha2-nistp384": ["nistp384", 97],
  "ecdsa-sha2-nistp521": ["nistp521", 133],
};

class WireReader {
  private offset = 0;
  private readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** One SSH `string` (uint32 length, then that many bytes), or null past the end. */
  next(): Uint8Array | null {
    if (this.offset + 4 > this.bytes.length) return null;
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.offset, 4);
    const length = view.getUint32(0);
    const start = this.offset + 4;
    if (start + length > this.bytes.length) return null;
    this.offset = start + length;
    return this.bytes.subarray(start, start + length);
  }

  done(): boolean {
    return this.offset === this.bytes.length;
  }
}

function decodeBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Bits of an SSH `mpint` (big-endian, a leading zero byte when the top bit is set). */
function mpintBits(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]!));
}

const text = new TextDecoder();

/** Checks the blob's fields for its type; null when they hold, else the rule broken. */
function blobRule(type: SshKeyType, reader: WireReader): string | null {
  if (type === "ssh-ed25519") return reader.next()?.length === 32 && reader.done() ? null : "must hold a 32-byte ed25519 key";
  if (type === "ssh-rsa") {
    const e = reader.next();
    const n = reader.next();
    if (!e || !n || !reader.done() || mpintBits(e) === 0) return "must hold an RSA exponent and modulus";
    return mpintBits(n) >= MIN_RSA_BITS ? null : `an RSA key must have at least ${MIN_RSA_BITS} bits (this one has ${mpintBits(n)})`;
  }
  const [curve, pointBytes] = EC_POINT_BYTES[type]!;
  const named = reader.next();
  const point = reader.next();
  if (!named || text.decode(named) !== curve) return `must name the curve ${curve}`;
  return point?.length === pointBytes && point[0] === 4 && reader.done() ? null : `must hold an uncompressed ${curve} point`;
}

/** Reads one public key line; refuses anything but the accepted types, a blob that disagrees with its type, or a weak RSA key. */
export function parseSshPublicKey(line: string): ParsedKey {
  const refuse = (rule: string): ParsedKey => ({ ok: false, rule });
  const trimmed = line.trim();
  if (trimmed.includes("\n")) return refuse("must be one line");
  const [type, blob, ...rest] = trimmed.split(/[ \t]+/);
  if (!type || !blob) return refuse("must be a line like `ssh-ed25519 AAAA… comment`, as in ~/.ssh/id_ed25519.pub");
  if (!(SSH_KEY_TYPES as readonly string[]).includes(type)) return refuse(`must be one of ${SSH_KEY_TYPES.join(", ")} (not ${type.slice(0, 40)})`);
  const bytes = decodeBase64(blob);
  if (!bytes) return refuse("the key must be base64");
  const reader = new WireReader(bytes);
  const named = reader.next();
  if (!named || text.decode(named) !== type) return refuse(`the key's own type must be ${type}`);
  const rule = blobRule(type as SshKeyType, reader);
  return rule ? refuse(rule) : { ok: true, key: { type: type as SshKeyType, blob, comment: rest.join(" ") } };
}

/** `SHA256:` and the unpadded base64 of the blob's SHA-256, as OpenSSH prints it (synchronous: an instance's view computes it). */
export function sshFingerprint(blob: string): string {
  return "SHA256:" + createHash("sha256").update(Buffer.from(blob, "base64")).digest("base64").replace(/=+$/, "");
}
