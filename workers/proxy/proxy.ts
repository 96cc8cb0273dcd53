// /v1/instances/{id}/proxy/{port}/{path}: one Durable Object hop on the hot path. The instance id
// names the machine that hosts it (core/ids.ts); that machine's MachineDO admits the caller (an
// account key, by its SHA-256, or the instance's token) and streams the exchange. The instance's
// AccountDO is asked only on the slow path, for refusals the MachineDO cannot judge and legacy ids.
import type { Env } from "../../core/env.ts";
import { pathProxyPolicy } from "../../protocol/mux/headers.ts";
import { bearerAdmission } from "../forward/bearer-admission.ts";
import { forwardToInstance } from "../forward/forward-to-instance.ts";
import type { ProxyPath } from "./proxy-path.ts";

export { matchProxyPath } from "./proxy-path.ts";

export async function proxyRequest(request: Request, env: Env, path: ProxyPath, requestId: string): Promise<Response> {
  return forwardToInstance(request, env, {
    instanceId: path.instanceId,
    port: path.port,
    target: path.target,
    // The caller's credentials stay with us; the app lives under the proxy's prefix.
    policy: pathProxyPolicy(path.prefix),
    admission: await bearerAdmission(request, env, path.instanceId),
    requestId,
  });
}
