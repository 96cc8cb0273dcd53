// The Hono environment of the API: bindings and what middleware hands to routes.
import type { Env } from "../../core/env.ts";

export interface ApiEnv {
  Bindings: Env;
  Variables: {
    /** The caller's API key, checked by the AccountDO on the same call as the operation. */
    apiKey: string;
    accountId: string;
  };
}
