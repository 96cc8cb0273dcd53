// /v1/instances/{id}/files: an instance's files in and out as tar streams (the Docker archive API's
// semantics), running or stopped, with a key or a session. The account admits the caller; the
// instance's MachineDO judges its state (a destroyed one is 409) and streams the tar both ways.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf, machineOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { filesRequestUrl, MAX_FILES_PATH_CHARS, type FilesRequest } from "../../../durable-objects/contracts/files-request.ts";
import { refusalOf } from "../../../durable-objects/contracts/proxy-request.ts";
import { requestIdOf } from "../../http/request-id.ts";
import type { ApiEnv } from "../context.ts";
import { InstanceIdParam } from "../schemas/common.ts";
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

const putRoute = callerRoute([400, 404, 409, 413, 502], {
  method: "put", path: "/instances/{id}/files", summary: "Extract a tar stream into a directory of the instance",
  description: "The body is `application/x-tar`, extracted into the directory (which must exist: else 404); running or stopped. At most 512 MB per request, as a proxied body. 409 conflict when the instance is destroyed.",
  request: { params: InstanceIdParam, query: pathQuery("An absolute path of an existing directory in the instance, e.g. /data") },
  responses: { 204: { description: "Extracted" } },
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
  .openapi(putRoute, async (c) => files(c.env, c.var, c.req.raw, { instanceId: c.req.valid("param").id, op: "put", path: c.req.valid("query").path }));
