// Whether the signed-in member's role may do something, for the pages that offer it only then.
import { useMe } from "./account.ts";
import { mayCall, SHELL_ROLES, type GuardedRoute } from "./roles.ts";

/** Whether the signed-in member may call `route` (false until /v1/me has answered). */
export function useMay(route: GuardedRoute): boolean {
  const me = useMe();
  return me.data ? mayCall(me.data.account.role, route) : false;
}

/** Whether the signed-in member may open a shell in an instance. */
export function useMayUseShell(): boolean {
  const me = useMe();
  return me.data ? SHELL_ROLES.includes(me.data.account.role) : false;
}
