// The Hono environment of the API: bindings and what middleware hands to routes.
import type { Env } from "../../core/env.ts";

export interface ApiEnv {
  Bindings: Env;
  Variables: {
    /** The caller's credential (an API key or a session), checked by the AccountDO on the same call as the operation. */
    credential: string;
    accountId: string;
  };
}
