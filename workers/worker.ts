// The Worker's request handling, for both entries (main.ts, the production Worker; dev/dev-main.ts, the
// dev Worker, which adds its own routes): plain http to a public host goes to https; a host of an
// instance web app (`{instance id}-{port}.{APPS_DOMAIN}`) is the app's, whatever the path; on any
// other host, the agent endpoint, the path proxy, or the service's own origin: rate limit, then the
// API, or for any other path the dashboard's static files (env.ASSETS).
import { logAccess } from "./access-log.ts";
import { connectAgent } from "./agent-connect.ts";
import { serveAppRequest } from "./apps/app-request.ts";
import { createApiApp } from "./api/app.ts";
import { PRICING_PATH } from "./api/routes/pricing-routes.ts";
import { matchAppHost, type AppTarget } from "./http/app-origin.ts";
import { admitAdminRequest, admitRequest, clientIp } from "./http/rate-limit.ts";
import { errorResponseFor, unexpectedErrorOf } from "./http/to-api-error.ts";
import { newRequestId, rememberRequestId, withRequestId } from "./http/request-id.ts";
import { weakSecretRefusal } from "./http/secret-strength.ts";
import { devSettingRefusal } from "./http/dev-setting-refusal.ts";
import { httpsRedirect, withOriginHeaders, withProxiedHeaders } from "./http/security-headers.ts";
import type { Env } from "../core/env.ts";
import { ApiError } from "../core/errors.ts";
import { useLogLevel } from "../core/log.ts";
import { matchProxyPath, proxyRequest } from "./proxy/proxy.ts";
import { matchSshPath, sshRequest } from "./proxy/ssh.ts";
import { matchTerminalPath, terminalRequest } from "./proxy/terminal.ts";
import type { ProxyPath } from "./proxy/proxy-path.ts";

/** Routes only the dev Worker has: tried for the paths under `prefix`, before the dashboard, the rate limit and the API. */
export interface DevRoutes {
  prefix: string;
  /** The answer, or null to go on as if the route were not there (404 in the error format, like any unknown route). */
  route(request: Request, env: Env): Promise<Response | null>;
}

export interface Worker {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response>;
}

const api = createApiApp();

/**
 * `strongSecrets`: the deployed Worker, which refuses to serve while ADMIN_TOKEN or
 * INSTANCE_TOKEN_SECRET is short, or while a dev Worker's setting is on.
 */
export function createWorker(devRoutes: DevRoutes | null = null, { strongSecrets = false } = {}): Worker {
  return {
    async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
      useLogLevel(env.LOG_LEVEL);
      const startedMs = Date.now();
      const requestId = newRequestId();
      const url = new URL(request.url);
      const way = wayIn(request, url, env);
      let response: Response;
      try {
        const weak = strongSecrets ? (weakSecretRefusal(env) ?? devSettingRefusal(env)) : null;
        if (weak) throw weak;
        response = httpsRedirect(url) ?? await route(request, env, ctx, requestId, way, devRoutes);
      } catch (error) {
        response = errorResponseFor(error, requestId);
      }
      const unexpected = unexpectedErrorOf(response);
      response = withRequestId(response, requestId);
      if (way.kind === "origin") response = withOriginHeaders(response, url);
      if (way.kind === "proxy") response = withProxiedHeaders(response, url);
      // A body refused unread (401, 413, 429 ...) is cancelled, so the runtime answers now instead of
      // waiting for the client to send all of it.
      if (request.body && !request.bodyUsed) await request.body.cancel().catch(() => undefined);
      logAccess({ request, status: response.status, durationMs: Date.now() - startedMs, requestId, unexpected });
      return response;
    },
  };
}

/** The Worker's own paths (and the dev routes' prefix in the dev Worker); any other path is the dashboard's. */
const WORKER_PREFIXES = ["/v1", "/admin", "/agent", PRICING_PATH];

/** Which way into the service a request takes: each has its own routes and its own response headers. */
type Way =
  | { kind: "app"; app: AppTarget | "unknown" } | { kind: "agent" } | { kind: "proxy"; path: ProxyPath | ApiError }
  | { kind: "ssh" | "terminal"; instanceId: string } | { kind: "origin" };

function wayIn(request: Request, url: URL, env: Env): Way {
  // First: nothing of the API, the agent endpoint or the dashboard is reachable on an app's origin.
  const app = matchAppHost(url.host, env.APPS_DOMAIN);
  if (app !== null) return { kind: "app", app };
  if (url.pathname === "/agent/v1/connect") return { kind: "agent" };
  const path = matchProxyPath(request.url);
  if (path) return { kind: "proxy", path };
  const sshInstance = matchSshPath(request.url);
  if (sshInstance) return { kind: "ssh", instanceId: sshInstance };
  const terminalInstance = matchTerminalPath(request.url);
  return terminalInstance ? { kind: "terminal", instanceId: terminalInstance } : { kind: "origin" };
}

async function route(request: Request, env: Env, ctx: ExecutionContext, requestId: string, way: Way, devRoutes: DevRoutes | null): Promise<Response> {
  if (way.kind === "app") return serveAppRequest(request, env, way.app, requestId);
  if (way.kind === "agent") return connectAgent(request, env);
  if (way.kind === "proxy") {
    await admitRequest(clientIp(request), env, Date.now());
    if (way.path instanceof ApiError) throw way.path;
    return proxyRequest(request, env, way.path, requestId);
  }
  if (way.kind === "ssh" || way.kind === "terminal") {
    await admitRequest(clientIp(request), env, Date.now());
    return (way.kind === "ssh" ? sshRequest : terminalRequest)(request, env, way.instanceId, requestId);
  }
  const path = new URL(request.url).pathname;
  if (devRoutes && path.startsWith(`${devRoutes.prefix}/`)) {
    const answer = await devRoutes.route(request, env);
    if (answer) return answer;
  }
  // Every request reaches the Worker first (run_worker_first); what it does not own is the dashboard's
  // to read: its files, or index.html for the single-page app's own routes. Any other method there
  // is an unknown route of the API (404 in the error format), not the asset server's bare 405.
  const prefixes = devRoutes ? [...WORKER_PREFIXES, devRoutes.prefix] : WORKER_PREFIXES;
  const dashboardPath = !prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  if (dashboardPath && (request.method === "GET" || request.method === "HEAD")) return env.ASSETS.fetch(request);
  if (path.startsWith("/v1/") || path === PRICING_PATH) await admitRequest(clientIp(request), env, Date.now());
  if (path.startsWith("/admin/")) await admitAdminRequest(clientIp(request), env, Date.now());
  // The API's Hono app is handed only the request: its routes find the id by it.
  rememberRequestId(request, requestId);
  return api.fetch(request, env, ctx);
}
