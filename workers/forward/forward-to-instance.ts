// The one forwarding step from the Worker to an instance: the request goes to the MachineDO of the
// machine its id names (core/ids.ts), which admits the caller and the instance (machine/
// proxy-admission.ts) and streams the exchange both ways, WebSocket upgrades included. The callers
// differ only in what they pass: where in the instance, the header rule of their way in, and who the
// caller is (an Admission). The path proxy and the web apps' origins call it; SSH, the terminal and
// file transfers are more callers of it, not new plumbing.
import { machineOf, type Env } from "../../core/env.ts";
import { ApiError, unwrap, type Failure } from "../../core/errors.ts";
import { machineIdOfInstance } from "../../core/ids.ts";
import {
  MACHINE_PROXY_URL, machineProxyInit, refusalOf, type AgentSession, type ProxyCredential, type ProxyRefusal, type ProxyRequest,
} from "../../durable-objects/contracts/proxy-request.ts";
import type { Opener } from "../../durable-objects/contracts/opener.ts";
import { clientResponseOf } from "../../durable-objects/contracts/upstream-answer.ts";
import { offeredSubprotocols, upstreamRequestHeaders, type UpstreamPolicy } from "../../protocol/mux/headers.ts";
import { clientIp } from "../http/rate-limit.ts";

/** Who the caller is, as the instance's MachineDO judges it, and who judges what it cannot. */
export interface Admission {
  credential: ProxyCredential;
  /**
   * The slow path, for what the MachineDO cannot judge (a key not in the instance's account's set, an
   * instance it does not know): the account that can, which names the instance's machine when it
   * admits the caller, and the key or session it admitted (the stream's opener, which ends it when it
   * ends). Absent where the MachineDO's word is final (an app session).
   */
  askAccount?: () => Promise<{ ok: true; machine_id: number; opener: Opener | null } | Failure>;
}

export interface Forwarding {
  instanceId: string;
  port: number;
  /** Path and query for the upstream, exactly as the client encoded them (workers/http/raw-url.ts). */
  target: string;
  /** How the caller's headers cross on this way in (protocol/mux/headers.ts). */
  policy: UpstreamPolicy;
  admission: Admission;
  /** Stamped on the client's response as it is built from the upstream's (contracts/upstream-answer.ts). */
  requestId: string;
  /** A WebSocket the agent ends itself (its SSH server, a terminal's shell), not a container port. */
  session?: AgentSession;
}

type Body = ReadableStream<Uint8Array> | null;

/** The instance's answer, streamed as it comes; a refusal is thrown as the ApiError the client gets. */
export async function forwardToInstance(request: Request, env: Env, to: Forwarding): Promise<Response> {
  const websocket = request.headers.get("upgrade")?.toLowerCase() === "websocket";
  const exchange: Omit<ProxyRequest, "credential"> = {
    instanceId: to.instanceId,
    port: to.port,
    target: to.target,
    method: request.method,
    headers: upstreamRequestHeaders(request.headers, to.policy, { clientIp: clientIp(request), url: request.url }),
    requestId: to.requestId,
    websocket: websocket ? { protocols: offeredSubprotocols(request.headers) } : null,
    ...(to.session ? { session: to.session } : {}),
  };
  const send = (machineId: number, credential: ProxyCredential, body: Body) =>
    machineOf(env, machineId).fetch(MACHINE_PROXY_URL, machineProxyInit({ ...exchange, credential }, body, request.headers.get("content-length")));

  // HTTP gives a GET or HEAD body no meaning and fetch cannot carry one (a client may still send one,
  // e.g. Transfer-Encoding: chunked): it is not forwarded.
  let body: Body = request.method === "GET" || request.method === "HEAD" ? null : request.body;
  const { askAccount } = to.admission;
  const machineId = machineIdOfInstance(to.instanceId);
  if (machineId !== null) {
    const response = await send(machineId, to.admission.credential, body);
    const refusal = refusalOf(response);
    if (refusal === null) return clientResponseOf(response, to.requestId);
    if (refusal.kind === "refused" || !askAccount) return refuse(refusal, response.body);
    // A refusal hands the request body back unread, for the slow path's hop (a request without one
    // gets an empty stream back across the object boundary, which a GET cannot carry).
    if (body === null) await cancel(response.body);
    else body = response.body;
  }
  if (!askAccount) throw new ApiError("not_found", `no instance ${to.instanceId}`);
  const verdict = await askAccount();
  if (!verdict.ok) await cancel(body);
  const { machine_id, opener } = unwrap(verdict);
  const response = await send(machine_id, { kind: "admitted_by_account", opener }, body);
  const refusal = refusalOf(response);
  return refusal === null ? clientResponseOf(response, to.requestId) : refuse(refusal, response.body);
}

/** Cancelling the unread body lets the runtime answer now instead of waiting for the client to send it all. */
async function refuse(refusal: ProxyRefusal, body: Body): Promise<never> {
  await cancel(body);
  // A caller the MachineDO judges alone, or one the account has admitted, is never sent to the
  // account: that answer would be a broken MachineDO.
  throw refusal.kind === "refused"
    ? new ApiError(refusal.code, refusal.message)
    : new ApiError("internal", "the instance's host asked the account about a caller it was to judge itself");
}

const cancel = (body: Body) => body?.cancel().catch(() => undefined);
