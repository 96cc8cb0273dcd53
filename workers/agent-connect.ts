// /agent/v1/connect: a host agent dials in with its machine's token (`gma_<machine id>_<secret>`);
// the upgrade is handed to that machine's MachineDO, which checks the token before accepting.
import { ApiError } from "./api/errors.ts";
import { bearerToken } from "./api/middleware/caller-auth.ts";
import { machineOf, type Env } from "./env.ts";

export async function connectAgent(request: Request, env: Env): Promise<Response> {
  const token = bearerToken(request.headers.get("authorization"));
  const machineId = Number(/^gma_([1-9][0-9]{0,9})_[a-z2-7]{32}$/.exec(token ?? "")?.[1] ?? NaN);
  if (!Number.isSafeInteger(machineId)) throw new ApiError("unauthorized", "agent token missing or malformed");
  return machineOf(env, machineId).fetch(request);
}
