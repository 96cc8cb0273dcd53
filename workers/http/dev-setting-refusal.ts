// Settings only the dev Worker honours, which the deployed Worker refuses to serve with (500 naming
// the variable, like a weak secret): DEV_LOCAL_IMAGES lets launches name `localhost/...` images,
// which a real host's engine would look for in its own network.
import { ApiError } from "../../core/errors.ts";
import type { Env } from "../../core/env.ts";
import { log } from "../../core/log.ts";

/** Why the deployed Worker refuses to serve, or null when no dev setting is on. */
export function devSettingRefusal(env: Env): ApiError | null {
  if (env.DEV_LOCAL_IMAGES !== "1") return null;
  log("error", "a dev setting is on: the deployed Worker serves nothing until it is removed", { setting: "DEV_LOCAL_IMAGES" });
  return new ApiError("internal", "the service is not configured: DEV_LOCAL_IMAGES is a setting of the dev Worker only; its operator removes it from the deployment's vars");
}
