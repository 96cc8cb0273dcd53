// A tar archive of one regular file, made on the fly from a file of the agent's (a staged upload),
// for the runtime's archive write: the file is streamed, never read into memory.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { TAR_END, tarEntryHead, tarPadding } from "../../standards/tar.ts";

/** `name` (one path segment) holding the `size` bytes of `file`, mode 0644, owned by root, modified at `mtime`. */
export function singleFileTar(name: string, file: string, size: number, mtime: Date): Readable {
  async function* blocks() {
    yield tarEntryHead({ name, type: "file", mode: 0o644, size, mtime: Math.floor(mtime.getTime() / 1000) });
    if (size > 0) yield* createReadStream(file, { start: 0, end: size - 1 });
    yield Buffer.concat([tarPadding(size), TAR_END]);
  }
  return Readable.from(blocks(), { objectMode: false });
}
