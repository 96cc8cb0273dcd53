// /v1/instances/{id}/ssh: a WebSocket whose binary messages are the raw SSH byte stream both ways (as
// `cloudflared access ssh` carries it), ended by the host agent's SSH server. It is the proxy's third
// caller of the one forwarding path (beside the path proxy and the web apps): the same admission (an
// account key or the instance's token), flow control and bounds. The account's SSH keys are read at
// the moment of connecting and travel with the opening, so the agent never asks the control plane
// and a key removed from the account is refused from the next connection on.
import { accountOf, type Env } from "../../core/env.ts";
import { ApiError, unwrap } from "../../core/errors.ts";
import { rawPathAndQuery } from "../http/raw-url.ts";
import { pathProxyPolicy } from "../../protocol/mux/headers.ts";
import { presentedBearer } from "../forward/bearer-admission.ts";
import { forwardToInstance } from "../forward/forward-to-instance.ts";
import { INSTANCE_USE_ROLES } from "../../durable-objects/contracts/members.ts";
import { callerIp } from "../http/caller-ip.ts";

const SSH_PATH = /^\/v1\/instances\/([^/?#]+)\/ssh(?:\?[^#]*)?$/;

/** SSH has no port of the instance: this one names the stream in logs and caps only. */
export const SSH_STREAM_PORT = 22;

/** The instance id of an SSH path, or null when `rawUrl` is not one. */
export function matchSshPath(rawUrl: string): string | null {
  return SSH_PATH.exec(rawPathAndQuery(rawUrl))?.[1] ?? null;
}

export async function sshRequest(request: Request, env: Env, instanceId: string, requestId: string): Promise<Response> {
  if (request.method !== "GET" || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    throw new ApiError("bad_request", "GET /v1/instances/{id}/ssh is a WebSocket upgrade carrying SSH: connect with `gpu ssh <id>` (or `gpu ssh-proxy <id>` as a ProxyCommand)");
  }
  const { bearer, accountId, credential } = await presentedBearer(request);
  const answer = unwrap(await accountOf(env, accountId).sshKeysFor({ token: bearer, may: INSTANCE_USE_ROLES, needs: "instances:use", ip: callerIp(request) }, { op: "allowed", instance_id: instanceId }));
  const keys = "allowed" in answer ? answer.allowed.map(({ id, type, blob }) => ({ id, type, blob })) : [];
  const prefix = `/v1/instances/${instanceId}/ssh`;
  return forwardToInstance(request, env, {
    instanceId,
    port: SSH_STREAM_PORT,
    target: "/",
    policy: pathProxyPolicy(prefix),
    admission: { credential, askAccount: () => accountOf(env, accountId).openProxy({ token: bearer, may: INSTANCE_USE_ROLES, needs: "instances:use", ip: callerIp(request) }, instanceId) },
    requestId,
    session: { kind: "ssh", keys },
  });
}
