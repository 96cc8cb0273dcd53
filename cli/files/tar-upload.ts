// An archive of local files, packed here (tar-pack.ts), PUT to a files route (PUT
// /v1/instances/{id}/files?path=<dir>, or a volume's) with its Content-Length, refused with the API's message.
import type { Transform } from "node:stream";
import { CappedBody, cappedOnTheWay, refusalOf, streamedPut } from "./streamed-put.ts";
import { packTar, planTar, type TarSelection } from "./tar-pack.ts";

export interface TarUpload extends TarSelection {
  /** The files URL with its query. */
  url: string;
  apiKey: string;
  /** The progress line, which the archive's bytes pass through. */
  counter: Transform;
}

/** Packs the names and PUTs the archive; CappedBody when something in front refused its size. */
export async function putTar(upload: TarUpload): Promise<void> {
  const plan = await planTar(upload);
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
