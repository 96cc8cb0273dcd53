// The Worker entry: rate limit, then the agent endpoint, the proxy, or the API.
import { AccountDO } from "../durable-objects/account/account-do.ts";
import { FleetDO } from "../durable-objects/fleet/fleet-do.ts";
import { EmailDO } from "../durable-objects/email/email-do.ts";
import { MachineDO } from "../durable-objects/machine/machine-do.ts";
import { connectAgent } from "./agent-connect.ts";
import { createApiApp } from "./api/app.ts";
import { benchRoute } from "./bench/bench-routes.ts";
import { admitRequest, clientIp } from "./http/rate-limit.ts";
import { toApiError } from "./http/to-api-error.ts";
import { newRequestId, withRequestId } from "./http/request-id.ts";
import type { Env } from "../core/env.ts";
import { matchProxyPath, proxyRequest } from "./proxy/proxy.ts";

export { AccountDO, EmailDO, FleetDO, MachineDO };

const api = createApiApp();

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const requestId = newRequestId();
    let response: Response;
    try {
      response = withRequestId(await route(request, env, ctx, requestId), requestId);
    } catch (error) {
      response = toApiError(error).toResponse(requestId);
    }
    // A body refused unread (401, 413, 429 ...) is cancelled, so the runtime answers now instead of
    // waiting for the client to send all of it.
    if (request.body && !request.bodyUsed) await request.body.cancel().catch(() => undefined);
    return response;
  },
} satisfies ExportedHandler<Env>;

async function route(request: Request, env: Env, ctx: ExecutionContext, requestId: string): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === "/agent/v1/connect") return connectAgent(request, env);
  if (path.startsWith("/bench/")) {
    const baseline = await benchRoute(request, env);
    if (baseline) return baseline;
  }
  if (path.startsWith("/v1/")) await admitRequest(clientIp(request), env, Date.now());
  const proxyTarget = matchProxyPath(request.url);
  if (proxyTarget) return proxyRequest(request, env, proxyTarget, requestId);
  return api.fetch(request, env, ctx);
}
