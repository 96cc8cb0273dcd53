// The Hono environment of the API: bindings and what middleware hands to routes.
import type { Env } from "../../core/env.ts";
import type { Credential } from "../../durable-objects/contracts/members.ts";

export interface ApiEnv {
  Bindings: Env;
  Variables: {
    /** The caller (an API key, or a person whose session was checked) and the route's roles, checked by the AccountDO on the same call as the operation. */
    credential: Credential;
    accountId: string;
    /** The session cookie's token and its person, on the routes only a signed-in browser may call (session-only.ts). */
    session: { token: string; personId: string };
  };
}
