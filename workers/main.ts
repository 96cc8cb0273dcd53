// The Worker entry: a host of an instance web app (`{instance id}-{port}.{APPS_DOMAIN}`) is the app's,
// whatever the path; on any other host, rate limit, then the agent endpoint, the proxy, or the API;
// any other path is the dashboard's static files (env.ASSETS).
import { AccountDO } from "../durable-objects/account/account-do.ts";
import { FleetDO } from "../durable-objects/fleet/fleet-do.ts";
import { EmailDO } from "../durable-objects/email/email-do.ts";
import { MachineDO } from "../durable-objects/machine/machine-do.ts";
import { logAccess } from "./access-log.ts";
import { connectAgent } from "./agent-connect.ts";
import { serveAppRequest } from "./apps/app-request.ts";
import { createApiApp } from "./api/app.ts";
import { benchRoute } from "./bench/bench-routes.ts";
import { matchAppHost } from "./http/app-origin.ts";
import { admitRequest, clientIp } from "./http/rate-limit.ts";
import { errorResponseFor, unexpectedErrorOf } from "./http/to-api-error.ts";
import { newRequestId, rememberRequestId, withRequestId } from "./http/request-id.ts";
import type { Env } from "../core/env.ts";
import { matchProxyPath, proxyRequest } from "./proxy/proxy.ts";

export { AccountDO, EmailDO, FleetDO, MachineDO };

const api = createApiApp();

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const startedMs = Date.now();
    const requestId = newRequestId();
    let response: Response;
    try {
      response = await route(request, env, ctx, requestId);
    } catch (error) {
      response = errorResponseFor(error, requestId);
    }
    const unexpected = unexpectedErrorOf(response);
    response = withRequestId(response, requestId);
    // A body refused unread (401, 413, 429 ...) is cancelled, so the runtime answers now instead of
    // waiting for the client to send all of it.
    if (request.body && !request.bodyUsed) await request.body.cancel().catch(() => undefined);
    logAccess({ request, status: response.status, durationMs: Date.now() - startedMs, requestId, unexpected });
    return response;
  },
} satisfies ExportedHandler<Env>;

/** The Worker's own paths (the bench baselines only when BENCH_ROUTES is 1, else 404 like any unknown route). */
const WORKER_PREFIXES = ["/v1", "/admin", "/agent", "/bench"];

async function route(request: Request, env: Env, ctx: ExecutionContext, requestId: string): Promise<Response> {
  const url = new URL(request.url);
  // First: nothing of the API, the agent endpoint or the dashboard is reachable on an app's origin.
  const app = matchAppHost(url.host, env.APPS_DOMAIN);
  if (app !== null) return serveAppRequest(request, env, app, requestId);
  const path = url.pathname;
  if (path === "/agent/v1/connect") return connectAgent(request, env);
  if (path.startsWith("/bench/")) {
    const baseline = await benchRoute(request, env);
    if (baseline) return baseline;
  }
  // Every request reaches the Worker first (run_worker_first); what it does not own is the dashboard's
  // to read: its files, or index.html for the single-page app's own routes. Any other method there
  // is an unknown route of the API (404 in the error format), not the asset server's bare 405.
  const dashboardPath = !WORKER_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  if (dashboardPath && (request.method === "GET" || request.method === "HEAD")) return env.ASSETS.fetch(request);
  if (path.startsWith("/v1/")) await admitRequest(clientIp(request), env, Date.now());
  const proxyTarget = matchProxyPath(request.url);
  if (proxyTarget) return proxyRequest(request, env, proxyTarget, requestId);
  // The API's Hono app is handed only the request: its routes find the id by it.
  rememberRequestId(request, requestId);
  return api.fetch(request, env, ctx);
}
