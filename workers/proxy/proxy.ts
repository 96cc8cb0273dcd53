// /v1/instances/{id}/proxy/{port}/{path}: admits the caller through the instance's AccountDO (an
// account key or the instance token), computes the upstream request once, then streams the
// exchange through the host's MachineDO.
import { apiKeys, bearerToken, instanceTokens } from "../../core/credentials.ts";
import { MAX_REQUEST_BODY_BYTES } from "../../durable-objects/machine/http-stream.ts";
import { encodeProxyRequest, PROXY_REQUEST_HEADER, type ProxyRequest } from "../../durable-objects/machine/proxy-request.ts";
import { ApiError, unwrap } from "../../core/errors.ts";
import { offeredSubprotocols, pathProxyPolicy, upstreamRequestHeaders } from "../../protocol/mux/headers.ts";
import { clientIp } from "../http/rate-limit.ts";
import { accountOf, machineOf, type Env } from "../../core/env.ts";
import { type ProxyPath } from "./proxy-path.ts";

export { matchProxyPath } from "./proxy-path.ts";

export async function proxyRequest(request: Request, env: Env, path: ProxyPath, requestId: string): Promise<Response> {
  const credential = bearerToken(request.headers.get("authorization"));
  const accountId = credential ? accountOfCredential(credential) : null;
  if (!credential || !accountId) throw new ApiError("unauthorized", "send Authorization: Bearer <API_KEY or instance token>");
  const { machine_id } = unwrap(await accountOf(env, accountId).openProxy(credential, path.instanceId));
  const length = request.headers.get("content-length");
  if (Number(length ?? 0) > MAX_REQUEST_BODY_BYTES) {
    throw new ApiError("payload_too_large", `request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes (512 MB)`);
  }
  const websocket = request.headers.get("upgrade")?.toLowerCase() === "websocket";
  const proxied: ProxyRequest = {
    instanceId: path.instanceId,
    port: path.port,
    target: path.target,
    method: request.method,
    headers: upstreamRequestHeaders(request.headers, pathProxyPolicy(path.prefix), { clientIp: clientIp(request), url: request.url }),
    // The MachineDO stamps the request id on the response it builds, so it is passed on uncopied.
    requestId,
    websocket: websocket ? { protocols: offeredSubprotocols(request.headers) } : null,
  };
  const headers = new Headers({ [PROXY_REQUEST_HEADER]: encodeProxyRequest(proxied) });
  // workerd passes a WebSocket back only to a request that asked to upgrade.
  if (websocket) headers.set("upgrade", "websocket");
  // HTTP gives a GET or HEAD body no meaning and fetch cannot carry one (a client may still send one,
  // e.g. Transfer-Encoding: chunked): it is not forwarded.
  const body = request.method === "GET" || request.method === "HEAD" ? null : request.body;
  if (length !== null && body) headers.set("content-length", length);
  return machineOf(env, machine_id).fetch("https://machine/proxy", { method: request.method, headers, body });
}

function accountOfCredential(credential: string): string | null {
  return apiKeys.ownerOf(credential) ?? instanceTokens.ownerOf(credential);
}
