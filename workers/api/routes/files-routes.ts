// /v1/instances/{id}/files: an instance's files in and out as tar streams (the Docker archive API's
// semantics), and single files of any size up in resumable parts, running or stopped, with a key or
// a session. The account admits the caller; the
// instance's MachineDO judges its state (a destroyed one is 409) and streams the tar both ways.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf, machineOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { filesRequestUrl, MAX_FILES_PATH_CHARS, type FilesRequest } from "../../../durable-objects/contracts/files-request.ts";
import { refusalOf } from "../../../durable-objects/contracts/proxy-request.ts";
import { requestIdOf } from "../../http/request-id.ts";
import type { ApiEnv } from "../context.ts";
import { InstanceIdParam } from "../schemas/common.ts";
import { checkUploadPart, finalField, partStaged, uploadPartFields } from "../schemas/upload-part.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const pathQuery = (description: string) =>
  z.object({
    path: z
      .string()
      .max(MAX_FILES_PATH_CHARS)
      .regex(/^\//, "must be an absolute path (starting with /)")
      .openapi({ param: { name: "path", in: "query", description }, example: "/data/results" }),
  });

const getRoute = callerRoute([400, 404, 409, 502], {
  method: "get", path: "/instances/{id}/files", summary: "A file or directory of the instance, as a tar stream",
  description: "`application/x-tar` of the path with its own name at the root (as `docker cp` makes it); running or stopped. 404 when the path does not exist; 409 conflict when the instance is destroyed.",
  request: { params: InstanceIdParam, query: pathQuery("An absolute path in the instance, e.g. /data/results") },
  responses: { 200: { description: "The tar archive, streamed", content: { "application/x-tar": { schema: z.string().openapi({ format: "binary" }) } } } },
});

/** An upload's part names one file: no directory (a trailing `/`), and no `.` or `..` as its name. */
const FILE_PATH = /[^/]$/;
const DOT_NAME = /\/\.{1,2}$/;

const putQuery = pathQuery("The directory to extract into (e.g. /data); with `upload`, the file to write (e.g. /data/weights.bin)")
  .extend({ ...uploadPartFields, final: finalField("the instance") })
  .superRefine((query, context) =>
    checkUploadPart(query, context, (path) => (FILE_PATH.test(path) && !DOT_NAME.test(path) ? null : "must name a file with upload (not ending in /, ., or ..)")));

const putRoute = callerRoute([400, 404, 409, 413, 502], {
  method: "put", path: "/instances/{id}/files", summary: "Extract a tar stream into a directory of the instance, or upload a file in parts",
  description:
    "The body is `application/x-tar`, extracted into the directory (which must exist: else 404); running or stopped. At most 512 MB per request, as a proxied body. 409 conflict when the instance is destroyed.\n\n" +
    "With `upload` (the client's id) and `offset`, the body is `application/octet-stream`, the bytes of the single file `path` from `offset`, " +
    "staged by the host: files of any size go up in parts (each at most 512 MB), resumable. A part answers 202 with `Upload-Offset`, the bytes staged so far; " +
    "the part with `final=1` writes the file into the instance (its directory must exist) and answers 204. A part whose `offset` is not `Upload-Offset` is 409 conflict, " +
    "with `Upload-Offset` to resume from; the instance's uploads staging more than its disk together is 413 payload_too_large, and so is a part while the host has no room to stage it " +
    "(the host's cap on all its uploads, or its disk nearly full), with `Upload-Offset`: what is staged stays, to go on from later. An upload untouched for an hour is forgotten. " +
    "Once written, an upload's id answers for an hour with the file's size as `Upload-Offset`: its final part sent again from there (its answer was lost) is 204 again, any other part 409 conflict.",
  request: { params: InstanceIdParam, query: putQuery },
  responses: {
    ...partStaged,
    204: { description: "Extracted, or the upload's file written" },
  },
});

async function files(env: ApiEnv["Bindings"], vars: ApiEnv["Variables"], request: Request, ask: Omit<FilesRequest, "requestId">): Promise<Response> {
  const { instance } = unwrap(await accountOf(env, vars.accountId).getInstance(vars.credential, ask.instanceId));
  const put = ask.op === "put";
  const headers = new Headers();
  const length = request.headers.get("content-length");
  if (put && length !== null) headers.set("content-length", length);
  const answer = await machineOf(env, instance.machine_id).fetch(filesRequestUrl({ ...ask, requestId: requestIdOf(request) }), {
    method: put ? "PUT" : "GET", headers, body: put ? request.body : null,
  });
  const refusal = refusalOf(answer);
  if (refusal === null) return new Response(answer.body, answer);
  await answer.body?.cancel();
  throw refusal.kind === "refused" ? new ApiError(refusal.code, refusal.message) : new ApiError("internal", "the instance's host refused a files request without a reason");
}

export const filesRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(getRoute, async (c) => files(c.env, c.var, c.req.raw, { instanceId: c.req.valid("param").id, op: "get", path: c.req.valid("query").path }))
  .openapi(putRoute, async (c) => {
    const { path, upload, offset, final } = c.req.valid("query");
    const part = upload === undefined ? {} : { upload: { id: upload, offset: offset ?? 0, final: final === "1" } };
    return files(c.env, c.var, c.req.raw, { instanceId: c.req.valid("param").id, op: "put", path, ...part });
  });
