// What a remote path is, asked before an upload: `cp -r` and `scp -r` copy into a directory that
// exists and give the new name otherwise. The files route has no stat: its GET's archive starts with
// the path itself, so the first entry's type answers, and the rest of the archive is not read.
import { readTar } from "../../standards/tar-read.ts";
import { refusalOf } from "./streamed-put.ts";

export type RemoteKind = "directory" | "file" | "absent";

/** GET `url` (a files route with its path); 404 is "absent". */
export async function remoteKind(url: string, apiKey: string): Promise<RemoteKind> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  if (response.status === 404) {
    await response.body?.cancel();
    return "absent";
  }
  if (!response.ok || !response.body) throw refusalOf({ status: response.status, text: await response.text() });
  return firstEntryKind(response.body);
}

/** The type of the archive's first entry, the archive read no further. */
export async function firstEntryKind(archive: ReadableStream<Uint8Array>): Promise<RemoteKind> {
  for await (const { entry } of readTar(archive)) return entry.type === "directory" ? "directory" : "file";
  return "absent";
}
