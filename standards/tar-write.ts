// Writing a tar archive as a web ReadableStream (workerd and Node alike), entry by entry as the
// reader of the stream asks for more: a file's bytes are drawn from its body only when the archive
// reaches them, so an archive larger than memory streams through. Headers as standards/tar.ts writes
// them (ustar, with pax records for what ustar cannot hold).
import { TAR_END, tarEntryHead, tarPadding, type TarEntry } from "./tar.ts";

export interface TarWriteEntry extends TarEntry {
  /** A regular file's bytes, exactly `size` of them; iterated only when the archive reaches them. */
  body?: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

/** The archive of `entries`, ended by its two zero blocks; a body whose length is not its entry's `size` errors the stream. */
export function tarStream(entries: AsyncIterable<TarWriteEntry> | Iterable<TarWriteEntry>): ReadableStream<Uint8Array> {
  const pieces = archivePieces(entries);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await pieces.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
}

async function* archivePieces(entries: AsyncIterable<TarWriteEntry> | Iterable<TarWriteEntry>): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const entry of entries) {
    yield tarEntryHead(entry);
    let written = 0;
    for await (const chunk of entry.body ?? []) {
      written += chunk.byteLength;
      if (written > entry.size) break;
      if (chunk.byteLength > 0) yield chunk;
    }
    if (written > entry.size) throw new Error(`${entry.name}: its body has more than the ${entry.size} bytes its header says`);
    if (written < entry.size) throw new Error(`${entry.name}: its body has ${written} bytes where its header says ${entry.size}`);
    const padding = tarPadding(entry.size);
    if (padding.byteLength > 0) yield padding;
  }
  yield TAR_END;
}
