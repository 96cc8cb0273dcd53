// An archive of local files, packed here (tar-pack.ts), PUT to the files API (PUT
// /v1/instances/{id}/files?path=<dir>) with its Content-Length, refused with the API's message.
import type { Transform } from "node:stream";
import { CappedBody, cappedOnTheWay, refusalOf, streamedPut } from "./streamed-put.ts";
import { packTar, planTar } from "./tar-pack.ts";

export interface TarUpload {
  /** The files URL with its query. */
  url: string;
  apiKey: string;
  /** What goes in the archive: `names`, relative to `parent`, each by itself (a directory's contents are named on their own). */
  parent: string;
  names: readonly string[];
  /** The name the user gave, followed if it is a link. */
  given: string;
  /** The name `given` takes at the destination (its own unless given). */
  as?: string;
  /** The progress line, which the archive's bytes pass through. */
  counter: Transform;
  /** Told of each name left out, and what it is. */
  skipped(name: string, what: string): void;
}

/** Packs the names and PUTs the archive; CappedBody when something in front refused its size. */
export async function putTar(upload: TarUpload): Promise<void> {
  const plan = await planTar(upload.parent, upload.names, upload.given, upload.skipped, upload.as);
  const packed = packTar(plan);
  let packFailed: unknown = null;
  packed.once("error", (error) => {
    packFailed = error;
    upload.counter.destroy(error);
  });
  const headers = { authorization: `Bearer ${upload.apiKey}`, "content-type": "application/x-tar", "content-length": String(plan.bytes) };
  const answer = await streamedPut(upload.url, headers, packed.pipe(upload.counter))
    .catch((error: unknown) => {
      throw packFailed ?? error;
    })
    // Answered before the archive was all read (a refusal): the file it was reading is let go.
    .finally(() => packed.destroy());
  if (answer.status < 200 || answer.status > 299) throw cappedOnTheWay(answer) ? new CappedBody(refusalOf(answer).message) : refusalOf(answer);
}
