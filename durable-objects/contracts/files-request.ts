// What the Worker asks the MachineDO for an instance's files: a tar of a path (get) or a tar to
// extract into a directory (put). It rides the URL of a MachineDO `fetch` (not RPC), so the tar
// streams both ways as a body. The caller is already admitted by the instance's account; the
// MachineDO judges only the instance's state. Encoded and checked by the two functions below.
import { z } from "zod";

export interface FilesRequest {
  instanceId: string;
  op: "get" | "put";
  /** An absolute path in the container. */
  path: string;
  /** The Worker's id of the request, for the stream's log lines ("" when it has none). */
  requestId: string;
}

/** At most this long: Linux's PATH_MAX. */
export const MAX_FILES_PATH_CHARS = 4096;

const filesRequest: z.ZodType<FilesRequest> = z.object({
  instanceId: z.string().regex(/^i-[a-z2-7]{16}$/),
  op: z.enum(["get", "put"]),
  path: z.string().startsWith("/").max(MAX_FILES_PATH_CHARS),
  requestId: z.string().default(""),
});

export const FILES_PATH = "/files";

export function filesRequestUrl(request: FilesRequest): string {
  const query = new URLSearchParams({ instanceId: request.instanceId, op: request.op, path: request.path, requestId: request.requestId });
  return `https://machine${FILES_PATH}?${query}`;
}

export function decodeFilesRequest(url: URL): { ok: true; request: FilesRequest } | { ok: false; reason: string } {
  const parsed = filesRequest.safeParse(Object.fromEntries(url.searchParams));
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `files request rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}
