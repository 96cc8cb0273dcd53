// The deployed Worker's secrets must be long enough to resist guessing: ADMIN_TOKEN runs the whole
// service, and INSTANCE_TOKEN_SECRET keys every instance token. A deployment with a short one
// serves nothing (500 naming the variable, so its operator sees what to fix at once) rather than
// run guessable. The dev Worker keeps the local stack's documented `dev-admin-token`.
import { ApiError } from "../../core/errors.ts";
import type { Env } from "../../core/env.ts";
import { log } from "../../core/log.ts";

export const MIN_SECRET_BYTES = 32;
const SECRETS = ["ADMIN_TOKEN", "INSTANCE_TOKEN_SECRET"] as const;
const utf8 = new TextEncoder();

/** Why the service refuses to serve, or null when its secrets are strong enough. */
export function weakSecretRefusal(env: Env): ApiError | null {
  for (const name of SECRETS) {
    const bytes = utf8.encode(env[name] ?? "").byteLength;
    if (bytes >= MIN_SECRET_BYTES) continue;
    log("error", "a secret is too short: the Worker serves nothing until it is replaced", { secret: name, bytes, minimum_bytes: MIN_SECRET_BYTES });
    return new ApiError("internal", `the service is not configured: its secret ${name} must be at least ${MIN_SECRET_BYTES} bytes (it has ${bytes}); its operator sets it with wrangler secret put ${name}`);
  }
  return null;
}
