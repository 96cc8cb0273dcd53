// /agent/v1/connect: a host agent dials in with its machine's token (`gma_<machine id>_<secret>`);
// the upgrade is handed to that machine's MachineDO, which checks the token before accepting. A GET
// without the upgrade only checks the token (204), for `gpu-rental-agent doctor`: it takes no
// connection over.
import { agentTokens, bearerToken } from "../core/credentials.ts";
import { ApiError } from "../core/errors.ts";
import { machineOf, type Env } from "../core/env.ts";

export async function connectAgent(request: Request, env: Env): Promise<Response> {
  const token = bearerToken(request.headers.get("authorization"));
  const machineId = token ? agentTokens.ownerOf(token) : null;
  if (machineId === null) throw new ApiError("unauthorized", "agent token missing or malformed");
  const upgrade = request.headers.get("upgrade")?.toLowerCase() === "websocket";
  if (!upgrade && request.method !== "GET") throw new ApiError("bad_request", "expected a WebSocket upgrade, or a GET to check the token");
  return machineOf(env, machineId).fetch(request);
}
