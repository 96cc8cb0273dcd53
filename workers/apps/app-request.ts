// A request to an instance web app's origin, `{instance id}-{port}.{APPS_DOMAIN}`: every method, path
// and query goes to `http://localhost:{port}{path}?{query}` inside the instance exactly as sent,
// through the same forwarding step as the path proxy (workers/forward). The instance id names its
// machine, whose MachineDO is the authority for the app's tickets and sessions (durable-objects/
// machine/app-sessions.ts): it turns a ticket into the app session, and admits each request by it.
// Nothing of the API is reachable here; refusals are a page for a person or JSON for a client
// (refusal-page.ts).
import { appTickets } from "../../core/credentials.ts";
import { machineOf, type Env } from "../../core/env.ts";
import { ApiError, unwrap } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { machineIdOfInstance } from "../../core/ids.ts";
import { APP_SESSION_TTL_MS } from "../../durable-objects/contracts/credential-lifetimes.ts";
import { REOPEN_APP } from "../../durable-objects/contracts/refusals.ts";
import { appOriginPolicy } from "../../protocol/mux/headers.ts";
import { forwardToInstance } from "../forward/forward-to-instance.ts";
import { APP_SESSION_COOKIE, SECURE_APP_SESSION_COOKIE, type AppTarget } from "../http/app-origin.ts";
import { admitAppRequest, clientIp } from "../http/rate-limit.ts";
import { rawPathAndQuery } from "../http/raw-url.ts";
import { toApiError } from "../http/to-api-error.ts";
import { appSessionCookie, appSessionOf } from "./app-cookie.ts";
import { otherSiteRefusal } from "./other-site.ts";
import { refusalResponse } from "./refusal-page.ts";
import { ticketOf, withoutTicket } from "./ticket-url.ts";

/** Answers a request to an app host; `target` is "unknown" for a host under APPS_DOMAIN that names no app. */
export async function serveAppRequest(request: Request, env: Env, target: AppTarget | "unknown", requestId: string): Promise<Response> {
  try {
    const machineId = target === "unknown" ? null : machineIdOfInstance(target.instanceId);
    if (target === "unknown" || machineId === null) {
      throw new ApiError("not_found", "no such app: an app's address is {instance id}-{port} under the apps domain, as the dashboard's Open gives it");
    }
    await admitAppRequest(clientIp(request), env, Date.now());
    const otherSite = otherSiteRefusal(request.method, request.headers);
    if (otherSite !== null) throw new ApiError("forbidden", otherSite);
    const ticket = ticketOf(request.url);
    if (ticket !== null) return await redeemTicket(request, env, machineId, target, ticket);
    return await forwardToApp(request, env, target, requestId);
  } catch (error) {
    return refusalResponse(toApiError(error), request.headers.get("accept"));
  }
}

/** The ticket becomes the app's session: 302 to the same address without it, setting the cookie. */
async function redeemTicket(request: Request, env: Env, machineId: number, target: AppTarget, ticket: string): Promise<Response> {
  if (appTickets.ownerOf(ticket) !== target.instanceId) throw new ApiError("unauthorized", `the ticket is not one of this app's; ${REOPEN_APP}`);
  const redeemed = unwrap(await machineOf(env, machineId).redeemAppTicket(target.instanceId, target.port, await sha256Hex(ticket)));
  return new Response(null, {
    status: 302,
    headers: {
      location: withoutTicket(request.url),
      // The session was made just now: the cookie lasts exactly as long.
      "set-cookie": appSessionCookie(redeemed.token, APP_SESSION_TTL_MS / 1000, new URL(request.url).protocol),
      "cache-control": "no-store",
      // The page it leads to never tells another site where it came from (the ticket is spent anyway).
      "referrer-policy": "no-referrer",
    },
  });
}

async function forwardToApp(request: Request, env: Env, target: AppTarget, requestId: string): Promise<Response> {
  const session = appSessionOf(request.headers.get("cookie"), target.instanceId, new URL(request.url).protocol);
  if ("refusal" in session) throw new ApiError("unauthorized", session.refusal);
  return forwardToInstance(request, env, {
    instanceId: target.instanceId,
    port: target.port,
    target: rawPathAndQuery(request.url),
    policy: appOriginPolicy([APP_SESSION_COOKIE, SECURE_APP_SESSION_COOKIE]),
    // An app session is judged by the MachineDO alone: there is no account to ask.
    admission: { credential: { kind: "app_session", session_sha256: await sha256Hex(session.token) } },
    requestId,
  });
}
