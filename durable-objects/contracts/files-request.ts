// What the Worker asks the MachineDO for an instance's files: a tar of a path (get), a tar to
// extract into a directory (put), or one part of a resumable upload of a single file (put with
// `upload`). It rides the URL of a MachineDO `fetch` (not RPC), so the bytes stream both ways as a
// body. The caller is already admitted by the instance's account; the MachineDO judges only the
// instance's state. Encoded and checked by the two functions below.
import { z } from "zod";
import { UPLOAD_ID_PATTERN } from "../../protocol/messages.ts";

/** One part of a resumable upload: the file's bytes from `offset`; `final` writes the file. */
export interface UploadPart {
  id: string;
  offset: number;
  final: boolean;
}

export interface FilesRequest {
  instanceId: string;
  op: "get" | "put";
  /** An absolute path in the container. */
  path: string;
  /** The Worker's id of the request, for the stream's log lines ("" when it has none). */
  requestId: string;
  /** Set on a put that is a part of a resumable upload of the file `path`. */
  upload?: UploadPart;
}

/** At most this long: Linux's PATH_MAX. */
export const MAX_FILES_PATH_CHARS = 4096;

const filesRequest = z.object({
  instanceId: z.string().regex(/^i-[a-z2-7]{16}$/),
  op: z.enum(["get", "put"]),
  path: z.string().startsWith("/").max(MAX_FILES_PATH_CHARS),
  requestId: z.string().default(""),
  uploadId: z.string().regex(UPLOAD_ID_PATTERN).optional(),
  offset: z.string().regex(/^\d{1,16}$/).transform(Number).pipe(z.number().int().max(Number.MAX_SAFE_INTEGER)).optional(),
  final: z.enum(["0", "1"]).optional(),
});

export const FILES_PATH = "/files";

export function filesRequestUrl(request: FilesRequest): string {
  const query = new URLSearchParams({ instanceId: request.instanceId, op: request.op, path: request.path, requestId: request.requestId });
  if (request.upload) {
    query.set("uploadId", request.upload.id);
    query.set("offset", String(request.upload.offset));
    query.set("final", request.upload.final ? "1" : "0");
  }
  return `https://machine${FILES_PATH}?${query}`;
}

export function decodeFilesRequest(url: URL): { ok: true; request: FilesRequest } | { ok: false; reason: string } {
  const parsed = filesRequest.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `files request rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
  }
  const { uploadId, offset, final, ...request } = parsed.data;
  if (uploadId === undefined) return { ok: true, request };
  if (request.op !== "put" || offset === undefined) return { ok: false, reason: "files request rejected at offset: an upload's part is a put with an offset" };
  return { ok: true, request: { ...request, upload: { id: uploadId, offset, final: final === "1" } } };
}
