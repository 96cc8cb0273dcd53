// A big file up as a resumable upload: parts of PART_BYTES through PUT /v1/instances/{id}/files (or a
// volume's files route) with `upload`, `offset` and, on the last, `final=1`. The server's staged size (`Upload-Offset`) is the
// authority on where the next part starts: a 409 with it resumes from there, and a part that broke
// off is sent again from whatever had arrived. A final part whose answer was lost is sent again too:
// the host (or the volume) keeps a written upload's size for an hour and answers 409 with it, and an
// empty final part from there is 204, so the file does not go twice. Parts refused as too large by
// something in front of the service (an edge that caps request bodies lower) are sent again smaller;
// a volume's parts stay whole chunks of 8 MiB.
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { CliError } from "../errors.ts";
import { sleep } from "../sleep.ts";
import { cappedOnTheWay, refusalOf, streamedPut, type PutAnswer } from "./streamed-put.ts";

/** Files bigger than this go in parts of this size. */
export const PART_BYTES = 256 * 1024 * 1024;
/** Parts that something in front of the service refuses as too large are halved, down to this. */
export const MIN_PART_BYTES = 1024 * 1024;
/** Every part of a file into a volume but the last is whole chunks of its storage, 8 MiB: halved no lower. */
export const VOLUME_PART_UNIT = 8 * 1024 * 1024;
/** Answers in a row that move the upload no further before the CLI gives up. */
const MAX_STALLS = 5;
/** The wait before a part that broke off is sent again, times the tries so far. */
const RETRY_AFTER_MS = 1_000;

export interface PartsUpload {
  /** The files URL of the instance or volume, without a query. */
  filesUrl: string;
  apiKey: string;
  /** The file's path in the instance or volume. */
  remotePath: string;
  local: string;
  size: number;
  /** Told how many bytes of the file have gone so far, as they go (the progress line). */
  progress(bytes: number): void;
  /** An upload begun before, to go on with (a new one unless given). */
  uploadId?: string;
  /** PART_BYTES unless given. */
  partBytes?: number;
  /** Parts are whole multiples of this, never halved below it (VOLUME_PART_UNIT for a volume); 1 unless given. */
  partUnit?: number;
}

export async function uploadInParts(upload: PartsUpload): Promise<void> {
  const id = upload.uploadId ?? randomBytes(18).toString("base64url");
  const unit = upload.partUnit ?? 1;
  const least = Math.max(MIN_PART_BYTES, unit);
  const wholeUnits = (bytes: number) => Math.max(unit, bytes - (bytes % unit));
  let partBytes = wholeUnits(upload.partBytes ?? PART_BYTES);
  let offset = 0;
  let stalls = 0;
  for (;;) {
    const end = Math.min(offset + partBytes, upload.size);
    const final = end === upload.size;
    const answer = await sendPart(upload, id, offset, end, final).catch((error: unknown) => (error instanceof CliError ? error : new CliError(String(error))));
    if (answer instanceof CliError) {
      // Broke off: sent again from the same offset a moment later, the server's 409 says how much of it was kept.
      if (++stalls > MAX_STALLS) throw answer;
      await sleep(RETRY_AFTER_MS * stalls);
      continue;
    }
    if (answer.status === 204 && final) return;
    if (cappedOnTheWay(answer) && partBytes > least) {
      // Refused before the service saw it: a proxy or the edge caps bodies lower (Cloudflare's plans: 100 to 500 MB).
      partBytes = Math.max(least, wholeUnits(Math.floor(partBytes / 2)));
      upload.progress(offset);
      continue;
    }
    const staged = stagedSize(answer);
    if ((answer.status !== 202 && answer.status !== 409) || staged === null || staged > upload.size) throw refusalOf(answer);
    stalls = staged > offset ? 0 : stalls + 1;
    if (stalls > MAX_STALLS) throw refusalOf(answer);
    offset = staged;
    upload.progress(offset);
  }
}

function sendPart(upload: PartsUpload, id: string, offset: number, end: number, final: boolean): Promise<PutAnswer> {
  const query = new URLSearchParams({ path: upload.remotePath, upload: id, offset: String(offset), ...(final ? { final: "1" } : {}) });
  const bytes = end > offset ? createReadStream(upload.local, { start: offset, end: end - 1 }) : Readable.from([]);
  let sent = offset;
  const counted = bytes.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sent += chunk.byteLength;
        upload.progress(sent);
        done(null, chunk);
      },
    }),
  );
  const headers = { authorization: `Bearer ${upload.apiKey}`, "content-type": "application/octet-stream", "content-length": String(end - offset) };
  return streamedPut(`${upload.filesUrl}?${query}`, headers, counted);
}

/** The staged size a 202 or 409 names; null when it names none. */
function stagedSize(answer: PutAnswer): number | null {
  const value = answer.headers["upload-offset"];
  return typeof value === "string" && /^\d+$/.test(value) ? Number(value) : null;
}
