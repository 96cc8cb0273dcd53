// A tar archive of one regular file, made on the fly from a file of the agent's (a staged upload),
// for the runtime's archive write: the file is streamed, never read into memory. A name longer than
// ustar's 100 bytes or a size past its 8 GiB go in a pax header before the entry (Docker's archive
// API and GNU tar read both).
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";

const BLOCK = 512;
/** ustar's size field holds 11 octal digits. */
const MAX_USTAR_SIZE = 8 ** 11 - 1;
const MAX_USTAR_NAME = 100;

/** `name` (one path segment) holding the `size` bytes of `file`, mode 0644, owned by root, modified at `mtime`. */
export function singleFileTar(name: string, file: string, size: number, mtime: Date): Readable {
  const seconds = Math.floor(mtime.getTime() / 1000);
  const records: string[] = [];
  if (Buffer.byteLength(name) > MAX_USTAR_NAME) records.push(paxRecord("path", name));
  if (size > MAX_USTAR_SIZE) records.push(paxRecord("size", String(size)));
  async function* blocks() {
    if (records.length > 0) {
      const pax = Buffer.from(records.join(""));
      yield header({ name: "PaxHeader", size: pax.byteLength, type: "x", mtime: seconds });
      yield Buffer.concat([pax, padding(pax.byteLength)]);
    }
    yield header({ name: truncated(name), size: Math.min(size, MAX_USTAR_SIZE), type: "0", mtime: seconds });
    if (size > 0) yield* createReadStream(file, { start: 0, end: size - 1 });
    yield Buffer.concat([padding(size), Buffer.alloc(2 * BLOCK)]);
  }
  return Readable.from(blocks(), { objectMode: false });
}

/** A pax record `"<length> <key>=<value>\n"`, whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

/** The zeros that round `size` bytes up to whole blocks. */
const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The ustar name field's share of a longer name (the pax `path` record carries it whole). */
function truncated(name: string): string {
  let cut = name;
  while (Buffer.byteLength(cut) > MAX_USTAR_NAME) cut = cut.slice(0, -1);
  return cut;
}

function header(entry: { name: string; size: number; type: "0" | "x"; mtime: number }): Buffer {
  const block = Buffer.alloc(BLOCK);
  const field = (offset: number, length: number, text: string) => block.write(text, offset, length, "utf8");
  const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, "0")}\0`;
  field(0, 100, entry.name);
  field(100, 8, octal(0o644, 8));
  field(108, 8, octal(0, 8)); // uid
  field(116, 8, octal(0, 8)); // gid
  field(124, 12, octal(entry.size, 12));
  field(136, 12, octal(entry.mtime, 12));
  field(148, 8, " ".repeat(8)); // checksum, counted as spaces while summing
  field(156, 1, entry.type);
  field(257, 8, "ustar\x0000");
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}
