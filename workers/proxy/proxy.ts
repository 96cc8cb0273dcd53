// /v1/instances/{id}/proxy/{port}/{path}: admits the caller through the instance's AccountDO (an
// account key or the instance token), then streams the exchange through the host's MachineDO.
import { apiKeys, bearerToken, instanceTokens } from "../../core/credentials.ts";
import { MAX_REQUEST_BODY_BYTES } from "../../durable-objects/machine/http-stream.ts";
import { ApiError, unwrap } from "../../core/errors.ts";
import { clientIp } from "../http/rate-limit.ts";
import { accountOf, machineOf, type Env } from "../../core/env.ts";
import { type ProxyPath } from "./proxy-path.ts";
import { upstreamHeaders } from "./upstream-headers.ts";

export { matchProxyPath } from "./proxy-path.ts";

export async function proxyRequest(request: Request, env: Env, path: ProxyPath, requestId: string): Promise<Response> {
  const credential = bearerToken(request.headers.get("authorization"));
  const accountId = credential ? accountOfCredential(credential) : null;
  if (!credential || !accountId) throw new ApiError("unauthorized", "send Authorization: Bearer <API_KEY or instance token>");
  const { machine_id } = unwrap(await accountOf(env, accountId).openProxy(credential, path.instanceId));
  const length = Number(request.headers.get("content-length") ?? 0);
  if (length > MAX_REQUEST_BODY_BYTES) {
    throw new ApiError("payload_too_large", `request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes (512 MB)`);
  }
  const headers = upstreamHeaders(request, path, clientIp(request));
  headers.set("x-gpr-instance", path.instanceId);
  headers.set("x-gpr-port", String(path.port));
  headers.set("x-gpr-target", path.target);
  // The MachineDO stamps the request id on the response it builds, so it is passed on uncopied.
  headers.set("x-gpr-request-id", requestId);
  return machineOf(env, machine_id).fetch("https://machine/proxy", { method: request.method, headers, body: request.body });
}

function accountOfCredential(credential: string): string | null {
  return apiKeys.ownerOf(credential) ?? instanceTokens.ownerOf(credential);
}
