// The signed-in browser's session cookie (set by the API's sign-in, workers/api/session/): its name,
// and the session a request carries in it, for the ways in that read it outside the API's routes
// (the dashboard's terminal).
import { personSessionOwner } from "../../core/credentials.ts";

export const SESSION_COOKIE = "gpr_session";

/** The session token and the person whose object checks it, in a Cookie header that holds a well-formed one. */
export function sessionInCookies(cookieHeader: string | null): { token: string; personId: string } | null {
  const pair = (cookieHeader ?? "").split(/;\s*/).find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  const token = pair?.slice(SESSION_COOKIE.length + 1) ?? "";
  const personId = personSessionOwner(token);
  return personId ? { token, personId } : null;
}
