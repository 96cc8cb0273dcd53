// The tar format (POSIX.1-2001 pax, on ustar headers), as far as the service writes it: regular files,
// directories, symbolic links and FIFOs. What ustar's fields cannot hold (a name or link target past
// 100 bytes, a size past 8 GiB) goes in a pax extended header before the entry; Docker's archive API
// and GNU tar read both. The agent writes tars for the engine (a staged upload, a new /data) and the
// CLI packs what `gpu cp` sends, so an archive's size is known before its first byte goes.
export const TAR_BLOCK_BYTES = 512;
/** The two zero blocks that end an archive. */
export const TAR_END = new Uint8Array(2 * TAR_BLOCK_BYTES);

const TYPE_FLAGS = { file: "0", symlink: "2", directory: "5", fifo: "6" } as const;
/** ustar's size field holds 11 octal digits. */
const MAX_USTAR_SIZE = 8 ** 11 - 1;
const MAX_USTAR_NAME = 100;

export interface TarEntry {
  /** The path inside the archive, `/`-separated; a directory's without its trailing slash. */
  name: string;
  type: keyof typeof TYPE_FLAGS;
  /** Permission bits (and setuid, setgid, sticky). */
  mode: number;
  /** A regular file's size in bytes; 0 for the other types. */
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** A symbolic link's target. */
  linkName?: string;
}

const encoder = new TextEncoder();

/** The blocks before an entry's data: a pax header when ustar cannot hold it, then its ustar header. */
export function tarEntryHead(entry: TarEntry): Uint8Array {
  const name = entry.type === "directory" ? `${entry.name}/` : entry.name;
  const records: string[] = [];
  if (encoder.encode(name).byteLength > MAX_USTAR_NAME) records.push(paxRecord("path", name));
  if (entry.linkName !== undefined && encoder.encode(entry.linkName).byteLength > MAX_USTAR_NAME) records.push(paxRecord("linkpath", entry.linkName));
  if (entry.size > MAX_USTAR_SIZE) records.push(paxRecord("size", String(entry.size)));
  const ustar = ustarHeader({ ...entry, name, size: Math.min(entry.size, MAX_USTAR_SIZE) }, TYPE_FLAGS[entry.type]);
  if (records.length === 0) return ustar;
  const pax = encoder.encode(records.join(""));
  const paxHeader = ustarHeader({ name: "PaxHeader", mode: 0o644, size: pax.byteLength, mtime: entry.mtime }, "x");
  return concat([paxHeader, pax, tarPadding(pax.byteLength), ustar]);
}

/** The zeros that round `size` bytes of data up to whole blocks. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((TAR_BLOCK_BYTES - (size % TAR_BLOCK_BYTES)) % TAR_BLOCK_BYTES);
}

/** The bytes an archive of `entries` takes, its end included. */
export function tarArchiveBytes(entries: readonly TarEntry[]): number {
  let bytes = TAR_END.byteLength;
  for (const entry of entries) bytes += tarEntryHead(entry).byteLength + entry.size + tarPadding(entry.size).byteLength;
  return bytes;
}

/** A pax record `"<length> <key>=<value>\n"`, whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = encoder.encode(body).byteLength;
  let length = bodyBytes;
  while (String(length).length + bodyBytes !== length) length = String(length).length + bodyBytes;
  return `${length}${body}`;
}

/** One ustar header block, owned by root; a field too long for ustar keeps its first bytes (a pax record has it whole). */
function ustarHeader(entry: { name: string; mode: number; size: number; mtime: number; linkName?: string }, typeFlag: string): Uint8Array {
  const block = new Uint8Array(TAR_BLOCK_BYTES);
  const field = (offset: number, length: number, text: string) => block.set(truncated(encoder.encode(text), length), offset);
  const octal = (value: number, length: number) => `${Math.max(0, Math.floor(value)).toString(8).padStart(length - 1, "0")}\0`;
  field(0, 100, entry.name);
  field(100, 8, octal(entry.mode & 0o7777, 8));
  field(108, 8, octal(0, 8)); // uid
  field(116, 8, octal(0, 8)); // gid
  field(124, 12, octal(entry.size, 12));
  field(136, 12, octal(entry.mtime, 12));
  field(148, 8, " ".repeat(8)); // checksum, counted as spaces while summing
  field(156, 1, typeFlag);
  field(157, 100, entry.linkName ?? "");
  field(257, 8, "ustar\x0000");
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/** At most `length` bytes of `bytes`, never cutting a UTF-8 sequence in two. */
function truncated(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.byteLength <= length) return bytes;
  let end = length;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
