// /v1/instances/{id}/terminal: the dashboard's terminal, a WebSocket to a login shell in the
// instance's container (text messages are keystrokes or `{"type":"resize","cols","rows"}`, binary
// messages the shell's output). It is the signed-in browser's alone: the session cookie, and an
// Origin that is exactly this service's, since a browser sends the cookie with any site's WebSocket
// (cross-site WebSocket hijacking). The person's PersonDO checks the session and names the account it
// acts on, which admits the person (a member whose role may use instances) before anything is forwarded;
// then it is one more caller of the one forwarding path, with the proxy's bounds and flow control.
import { accountOf, personOf, type Env } from "../../core/env.ts";
import { ApiError, unwrap } from "../../core/errors.ts";
import { TERMINAL_MAX_SIZE } from "../../protocol/messages.ts";
import { pathProxyPolicy } from "../../protocol/mux/headers.ts";
import { forwardToInstance } from "../forward/forward-to-instance.ts";
import { rawPathAndQuery } from "../http/raw-url.ts";
import { sessionInCookies } from "../http/browser-session.ts";
import { SSH_STREAM_PORT } from "./ssh.ts";
import { INSTANCE_USE_ROLES } from "../../durable-objects/contracts/members.ts";
import { callerIp } from "../http/caller-ip.ts";

const TERMINAL_PATH = /^\/v1\/instances\/([^/?#]+)\/terminal(?:\?[^#]*)?$/;

const DEFAULT_SIZE = { cols: 80, rows: 24 };

/** The instance id of a terminal path, or null when `rawUrl` is not one. */
export function matchTerminalPath(rawUrl: string): string | null {
  return TERMINAL_PATH.exec(rawPathAndQuery(rawUrl))?.[1] ?? null;
}

export async function terminalRequest(request: Request, env: Env, instanceId: string, requestId: string): Promise<Response> {
  if (request.method !== "GET" || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    throw new ApiError("bad_request", "GET /v1/instances/{id}/terminal is a WebSocket upgrade for the dashboard's terminal");
  }
  const session = sessionInCookies(request.headers.get("cookie"));
  if (!session) throw new ApiError("unauthorized", "the terminal needs a signed-in session (the gpr_session cookie); from a shell, use `gpu ssh <id>`");
  const own = new URL(request.url).origin;
  const origin = request.headers.get("origin");
  if (origin !== own) throw new ApiError("forbidden", `the terminal opens from this service's own pages only (Origin ${origin ?? "missing"}, expected ${own})`);
  const size = sizeOf(new URL(request.url).searchParams);
  // The session opens the shell: its end (a sign-out, a password change) ends the shell too.
  const live = await personOf(env, session.personId).session(session.token);
  if (!live) throw new ApiError("unauthorized", "the session has ended: sign in again");
  if (live.account_id === null) throw new ApiError("forbidden", "you belong to no account now");
  const credential = { person: live.person, may: INSTANCE_USE_ROLES, needs: "instances:use" as const, ip: callerIp(request) };
  const { opener } = unwrap(await accountOf(env, live.account_id).openProxy(credential, instanceId, "session"));
  return forwardToInstance(request, env, {
    instanceId,
    // A shell session as SSH's are: SSH's stand-in port names it in logs and caps.
    port: SSH_STREAM_PORT,
    target: "/",
    policy: pathProxyPolicy(`/v1/instances/${instanceId}/terminal`),
    admission: { credential: { kind: "admitted_by_account", opener } },
    requestId,
    session: { kind: "terminal", ...size },
  });
}

/** The terminal's first size, `?cols=&rows=` (80 × 24 when left out); 400 naming the parameter otherwise. */
function sizeOf(params: URLSearchParams): { cols: number; rows: number } {
  const read = (name: "cols" | "rows") => {
    const text = params.get(name);
    if (text === null) return DEFAULT_SIZE[name];
    if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > TERMINAL_MAX_SIZE) {
      throw new ApiError("invalid", `${name}: must be an integer from 1 to ${TERMINAL_MAX_SIZE}`);
    }
    return Number(text);
  };
  return { cols: read("cols"), rows: read("rows") };
}
