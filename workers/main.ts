// The Worker entry: rate limit, then the agent endpoint, the proxy, or the API.
import { AccountDO } from "../durable-objects/account/account-do.ts";
import { FleetDO } from "../durable-objects/fleet/fleet-do.ts";
import { MachineDO } from "../durable-objects/machine/machine-do.ts";
import { connectAgent } from "./agent-connect.ts";
import { createApiApp } from "./api/app.ts";
import { errorResponse, toApiError } from "./api/errors.ts";
import { clientIp, rateLimiterFor } from "./api/middleware/rate-limit.ts";
import { newRequestId, withRequestId } from "./api/middleware/request-id.ts";
import type { Env } from "./env.ts";
import { matchProxyPath, proxyRequest } from "./proxy/proxy.ts";

export { AccountDO, FleetDO, MachineDO };

const api = createApiApp();

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const requestId = newRequestId();
    try {
      const path = new URL(request.url).pathname;
      if (path === "/agent/v1/connect") return withRequestId(await connectAgent(request, env), requestId);
      if (path.startsWith("/v1/")) rateLimiterFor(env.RATE_LIMIT_RPS).take(clientIp(request), Date.now());
      const proxyTarget = matchProxyPath(request.url);
      if (proxyTarget) return withRequestId(await proxyRequest(request, env, proxyTarget), requestId);
      return withRequestId(await api.fetch(request, env, ctx), requestId);
    } catch (error) {
      return errorResponse(toApiError(error), requestId);
    }
  },
} satisfies ExportedHandler<Env>;
