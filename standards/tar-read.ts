// Reading a tar archive as it streams in (a web ReadableStream, in workerd as in Node): ustar headers,
// with the long names and large sizes of pax extended headers (POSIX.1-2001, what Docker's archive
// API and `tar --format=pax` write) and of GNU tar's own format (its default: ././@LongLink entries,
// base-256 numbers). Regular files, directories, symbolic links and FIFOs are read; what cannot be
// stored as a plain tree is refused, naming the entry: hard links, devices, sparse files, names that
// are absolute or climb out with `..`. A body cut short, or one that ends without the end-of-archive
// block, is an error, never a shorter archive.
import { TAR_BLOCK_BYTES, type TarEntry } from "./tar.ts";

/** An archive that cannot be read: its message says where and why. */
export class TarError extends Error {
  override name = "TarError";
}

export interface TarReadEntry {
  /**
   * `name` relative to where the archive is extracted, `/`-separated, without `.`, empty or trailing
   * components; the archive's root itself (`./`) is named `.`.
   */
  entry: TarEntry;
  /** A regular file's bytes (empty for the other types), read from the archive as they are iterated: read them before the next entry. */
  body: AsyncIterable<Uint8Array>;
}

/** An extended header holds a name or two and a few numbers: past this it is not one. */
const MAX_EXTENDED_BYTES = 1 << 20;

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Each entry of the archive in order; the stream is read only as far as the entries and their bodies are. */
export async function* readTar(stream: ReadableStream<Uint8Array>): AsyncGenerator<TarReadEntry, void, undefined> {
  const source = new ByteSource(stream.getReader());
  try {
    let extended: Extended = {};
    for (;;) {
      const offset = source.position;
      const block = await source.read(TAR_BLOCK_BYTES);
      if (block === null) {
        throw new TarError(offset === 0 ? "the archive is empty" : `the archive ends at byte ${offset} without its end-of-archive blocks: it was cut short`);
      }
      // The end-of-archive blocks (GNU tar reads a lone one as the end too); what follows is a record's padding.
      if (block.every((byte) => byte === 0)) break;
      const header = parseHeader(block, offset);
      if (header.typeFlag === "x" || header.typeFlag === "g" || header.typeFlag === "L" || header.typeFlag === "K") {
        if (header.size > MAX_EXTENDED_BYTES) throw new TarError(`the extended header at byte ${offset} is larger than ${MAX_EXTENDED_BYTES} bytes`);
        const data = await source.readAll(header.size, () => `the archive ends inside the extended header at byte ${offset}`);
        await source.skip(padding(header.size), () => `the archive ends inside the extended header at byte ${offset}`);
        if (header.typeFlag === "x") extended = { ...extended, ...paxRecords(data, offset) };
        else if (header.typeFlag === "L") extended = { ...extended, path: cString(data, offset) };
        else if (header.typeFlag === "K") extended = { ...extended, linkpath: cString(data, offset) };
        // A global header ("g") sets defaults for the archive (a comment, a charset): nothing read here needs them.
        continue;
      }
      const entry = entryOf(header, extended, offset);
      extended = {};
      let left = entry.type === "file" ? entry.size : 0;
      const cut = () => `the archive ends inside the data of ${entry.name} (${entry.size} bytes at byte ${offset + TAR_BLOCK_BYTES})`;
      let current = true;
      const body = (async function* () {
        while (left > 0) {
          if (!current) throw new Error(`the body of ${entry.name} was read after the next entry`);
          const chunk = await source.next(left);
          if (chunk === null) throw new TarError(cut());
          left -= chunk.byteLength;
          yield chunk;
        }
      })();
      yield { entry, body };
      current = false;
      await source.skip(left + padding(entry.type === "file" ? entry.size : 0), cut);
    }
  } finally {
    await source.close();
  }
}

interface Header {
  name: string;
  mode: number;
  size: number;
  mtime: number;
  typeFlag: string;
  linkName: string;
}

type Extended = { path?: string; linkpath?: string; size?: string; mtime?: string };

function parseHeader(block: Uint8Array, offset: number): Header {
  const stored = numberField(block, 148, 8, offset, "checksum");
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < TAR_BLOCK_BYTES; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : block[i]!;
    unsigned += byte;
    signed += byte << 24 >> 24;
  }
  if (stored !== unsigned && stored !== signed) throw new TarError(`the header at byte ${offset} has a wrong checksum: not a tar archive, or a damaged one`);
  const name = textField(block, 0, 100, offset);
  // ustar (and pax) split a long name over `prefix` and `name`; GNU tar's own magic keeps other fields there.
  const ustar = textOf(block.subarray(257, 263)) === "ustar\0";
  const prefix = ustar ? textField(block, 345, 155, offset) : "";
  return {
    name: prefix ? `${prefix}/${name}` : name,
    mode: numberField(block, 100, 8, offset, "mode"),
    size: numberField(block, 124, 12, offset, "size"),
    mtime: numberField(block, 136, 12, offset, "mtime"),
    typeFlag: String.fromCharCode(block[156]!),
    linkName: textField(block, 157, 100, offset),
  };
}

const UNSUPPORTED: Record<string, string> = {
  "1": "a hard link (archive with --hard-dereference to store its content instead)",
  "3": "a character device",
  "4": "a block device",
  S: "a sparse file",
  V: "a volume label",
  M: "a continuation from another volume",
};

function entryOf(header: Header, extended: Extended, offset: number): TarEntry {
  const raw = extended.path ?? header.name;
  const name = relativeName(raw, offset);
  const size = extended.size === undefined ? header.size : decimal(extended.size, "size", offset);
  const mtime = extended.mtime === undefined ? header.mtime : Math.floor(decimal(extended.mtime, "mtime", offset));
  const mode = header.mode & 0o7777;
  const flag = header.typeFlag;
  const unsupported = UNSUPPORTED[flag];
  if (unsupported !== undefined) throw new TarError(`${raw} is ${unsupported}: only files, directories, symbolic links and FIFOs can be extracted`);
  // A name ending in `/` is a directory in archives older than ustar's type flag.
  if (flag === "5" || ((flag === "0" || flag === "\0") && raw.endsWith("/"))) return { name, type: "directory", mode, size: 0, mtime };
  if (name === ".") throw new TarError(`the archive's root (${raw}) must be a directory`);
  if (flag === "0" || flag === "\0" || flag === "7") return { name, type: "file", mode, size, mtime };
  if (flag === "2") {
    const linkName = extended.linkpath ?? header.linkName;
    if (linkName === "") throw new TarError(`the symbolic link ${raw} has no target`);
    return { name, type: "symlink", mode, size: 0, mtime, linkName };
  }
  if (flag === "6") return { name, type: "fifo", mode, size: 0, mtime };
  throw new TarError(`${raw} has the unknown type ${JSON.stringify(flag)}: only files, directories, symbolic links and FIFOs can be extracted`);
}

/** The name relative to where the archive is extracted; absolute names and `..` are refused, as GNU tar refuses them by default. */
function relativeName(raw: string, offset: number): string {
  if (raw === "") throw new TarError(`the entry at byte ${offset} has no name`);
  if (raw.startsWith("/")) throw new TarError(`${raw} is an absolute name: names in the archive must be relative`);
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new TarError(`${raw} climbs out with ..: names in the archive must stay inside it`);
  return parts.length === 0 ? "." : parts.join("/");
}

/** pax records `"<length> <key>=<value>\n"`, each length counting the whole record. */
function paxRecords(data: Uint8Array, offset: number): Extended {
  const records: Extended = {};
  const bad = () => new TarError(`the pax extended header at byte ${offset} is malformed`);
  let at = 0;
  while (at < data.byteLength) {
    let space = at;
    while (space < data.byteLength && data[space] !== 0x20) space++;
    const length = Number(textOf(data.subarray(at, space)));
    if (!Number.isSafeInteger(length) || length <= space - at + 1 || at + length > data.byteLength || data[at + length - 1] !== 0x0a) throw bad();
    const record = utf8(data.subarray(space + 1, at + length - 1), offset);
    const equals = record.indexOf("=");
    if (equals <= 0) throw bad();
    const key = record.slice(0, equals);
    const value = record.slice(equals + 1);
    if (key === "path" || key === "linkpath" || key === "size" || key === "mtime") {
      if (value.includes("\0")) throw bad();
      records[key] = value;
    } else if (key.startsWith("GNU.sparse.")) {
      throw new TarError(`the entry after byte ${offset} is a sparse file: only files, directories, symbolic links and FIFOs can be extracted`);
    }
    at += length;
  }
  return records;
}

function decimal(value: string, key: string, offset: number): number {
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isSafeInteger(Math.floor(number))) throw new TarError(`the pax ${key} ${JSON.stringify(value)} at byte ${offset} is not a number of the archive`);
  return number;
}

/** A numeric field: octal digits ended by NUL or space, or GNU tar's base-256 (its high bit set) for values octal cannot hold. */
function numberField(block: Uint8Array, start: number, length: number, offset: number, field: string): number {
  const bytes = block.subarray(start, start + length);
  if (bytes[0]! & 0x80) {
    if (bytes[0] !== 0x80) throw new TarError(`the header at byte ${offset} has a negative or oversized ${field}`);
    let value = 0;
    for (const byte of bytes.subarray(1)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value)) throw new TarError(`the header at byte ${offset} has an oversized ${field}`);
    return value;
  }
  const text = textOf(bytes).replace(/[\0 ]+$/, "").replace(/^ +/, "");
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`the header at byte ${offset} has a ${field} that is not octal: not a tar archive, or a damaged one`);
  return parseInt(text, 8);
}

/** A text field up to its first NUL, in UTF-8. */
function textField(block: Uint8Array, start: number, length: number, offset: number): string {
  return cString(block.subarray(start, start + length), offset);
}

function cString(bytes: Uint8Array, offset: number): string {
  const end = bytes.indexOf(0);
  return utf8(end === -1 ? bytes : bytes.subarray(0, end), offset);
}

function utf8(bytes: Uint8Array, offset: number): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new TarError(`the header at byte ${offset} has a name that is not UTF-8`);
  }
}

/** ASCII bytes as text (a field's digits or magic). */
const textOf = (bytes: Uint8Array) => String.fromCharCode(...bytes);

const padding = (size: number) => (TAR_BLOCK_BYTES - (size % TAR_BLOCK_BYTES)) % TAR_BLOCK_BYTES;

/** A byte stream read by counts: whole blocks, or the next piece of at most so many bytes without a copy. */
class ByteSource {
  position = 0;
  private pending: Uint8Array | null = null;
  private ended = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.reader = reader;
  }

  /** The next piece of at most `max` bytes, as it came; null at the end of the stream. */
  async next(max: number): Promise<Uint8Array | null> {
    while (this.pending === null || this.pending.byteLength === 0) {
      if (this.ended) return null;
      const { done, value } = await this.reader.read();
      if (done) {
        this.ended = true;
        return null;
      }
      this.pending = value;
    }
    const piece = this.pending.byteLength <= max ? this.pending : this.pending.subarray(0, max);
    this.pending = this.pending.byteLength <= max ? null : this.pending.subarray(max);
    this.position += piece.byteLength;
    return piece;
  }

  /** Exactly `length` bytes; null when the stream ended before the first of them. */
  async read(length: number): Promise<Uint8Array | null> {
    const first = await this.next(length);
    if (first === null || first.byteLength === length) return first;
    const out = new Uint8Array(length);
    out.set(first);
    let filled = first.byteLength;
    while (filled < length) {
      const piece = await this.next(length - filled);
      if (piece === null) throw new TarError(`the archive ends inside a header at byte ${this.position}: it was cut short`);
      out.set(piece, filled);
      filled += piece.byteLength;
    }
    return out;
  }

  /** Exactly `length` bytes, `cut` saying where the archive ended short. */
  async readAll(length: number, cut: () => string): Promise<Uint8Array> {
    if (length === 0) return new Uint8Array();
    const bytes = await this.read(length).catch((error: unknown) => {
      throw error instanceof TarError ? new TarError(cut()) : error;
    });
    if (bytes === null) throw new TarError(cut());
    return bytes;
  }

  async skip(length: number, cut: () => string): Promise<void> {
    let left = length;
    while (left > 0) {
      const piece = await this.next(left);
      if (piece === null) throw new TarError(cut());
      left -= piece.byteLength;
    }
  }

  /** Stops reading: what follows the end-of-archive blocks (a record's zero padding) is not needed. */
  async close(): Promise<void> {
    if (!this.ended) await this.reader.cancel().catch(() => undefined);
    this.reader.releaseLock();
  }
}
