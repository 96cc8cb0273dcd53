// /v1/instances/{id}/proxy/{port}/{path}: one Durable Object hop on the hot path. The instance id
// names the machine that hosts it (core/ids.ts); that machine's MachineDO admits the caller (an
// account key, by its SHA-256, or the instance's token) and streams the exchange. The instance's
// AccountDO is asked only on the slow path, for refusals the MachineDO cannot judge and legacy ids.
import { apiKeys, bearerToken, instanceTokens } from "../../core/credentials.ts";
import { ApiError, unwrap } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { machineIdOfInstance } from "../../core/ids.ts";
import {
  MACHINE_PROXY_URL, machineProxyInit, refusalOf, type ProxyCredential, type ProxyRefusal, type ProxyRequest,
} from "../../durable-objects/contracts/proxy-request.ts";
import { offeredSubprotocols, pathProxyPolicy, upstreamRequestHeaders } from "../../protocol/mux/headers.ts";
import { clientIp } from "../http/rate-limit.ts";
import { accountOf, machineOf, type Env } from "../../core/env.ts";
import { type ProxyPath } from "./proxy-path.ts";

export { matchProxyPath } from "./proxy-path.ts";

type Body = ReadableStream<Uint8Array> | null;

export async function proxyRequest(request: Request, env: Env, path: ProxyPath, requestId: string): Promise<Response> {
  const credential = bearerToken(request.headers.get("authorization"));
  const presented = credential === null ? null : await presentedCredential(credential);
  if (credential === null || presented === null) throw new ApiError("unauthorized", "send Authorization: Bearer <API_KEY or instance token>");
  const websocket = request.headers.get("upgrade")?.toLowerCase() === "websocket";
  const exchange: Omit<ProxyRequest, "credential"> = {
    instanceId: path.instanceId,
    port: path.port,
    target: path.target,
    method: request.method,
    headers: upstreamRequestHeaders(request.headers, pathProxyPolicy(path.prefix), { clientIp: clientIp(request), url: request.url }),
    // The MachineDO stamps the request id on the response it builds, so it is passed on uncopied.
    requestId,
    websocket: websocket ? { protocols: offeredSubprotocols(request.headers) } : null,
  };
  const forward = (machineId: number, admission: ProxyCredential, body: Body) =>
    machineOf(env, machineId).fetch(MACHINE_PROXY_URL, machineProxyInit({ ...exchange, credential: admission }, body, request.headers.get("content-length")));

  // HTTP gives a GET or HEAD body no meaning and fetch cannot carry one (a client may still send one,
  // e.g. Transfer-Encoding: chunked): it is not forwarded.
  let body: Body = request.method === "GET" || request.method === "HEAD" ? null : request.body;
  const machineId = machineIdOfInstance(path.instanceId);
  if (machineId !== null) {
    const response = await forward(machineId, presented.credential, body);
    const refusal = refusalOf(response);
    if (refusal === null) return response;
    if (refusal.kind === "refused") return refuse(refusal, response.body);
    // A refusal hands the request body back unread, for the slow path's hop (a request without one
    // gets an empty stream back across the object boundary, which a GET cannot carry).
    if (body === null) await cancel(response.body);
    else body = response.body;
  }
  // The slow path, for refusals and legacy ids only: the credential's own AccountDO judges it (a
  // wrong key 401, another account's 404) and, admitting it, names the machine of the instance.
  const verdict = await accountOf(env, presented.accountId).openProxy(credential, path.instanceId);
  if (!verdict.ok) await cancel(body);
  const response = await forward(unwrap(verdict).machine_id, { kind: "admitted_by_account" }, body);
  const refusal = refusalOf(response);
  return refusal === null ? response : refuse(refusal, response.body);
}

/** Who the credential claims to be (its account) and what the MachineDO is shown of it; null when it is neither kind. */
async function presentedCredential(credential: string): Promise<{ accountId: string; credential: ProxyCredential } | null> {
  const keyAccount = apiKeys.ownerOf(credential);
  if (keyAccount !== null) return { accountId: keyAccount, credential: { kind: "key", key_sha256: await sha256Hex(credential) } };
  const tokenAccount = instanceTokens.ownerOf(credential);
  if (tokenAccount !== null) return { accountId: tokenAccount, credential: { kind: "instance_token", token: credential } };
  return null;
}

/** Cancelling the unread body lets the runtime answer now instead of waiting for the client to send it all. */
async function refuse(refusal: ProxyRefusal, body: Body): Promise<never> {
  await cancel(body);
  // An admitted caller is never sent to the account: that answer would be a broken MachineDO.
  throw refusal.kind === "refused"
    ? new ApiError(refusal.code, refusal.message)
    : new ApiError("internal", "the instance's host asked the account again after the account admitted the request");
}

const cancel = (body: Body) => body?.cancel().catch(() => undefined);
