// The `gpr_app` cookie: an instance web app's session on its own origin. HttpOnly (the app's
// JavaScript never reads it), SameSite=Lax, host-only (no Domain: no other app origin gets it),
// Path=/, Secure on https, and no longer than the session the MachineDO keeps.
import { appSessionTokens } from "../../core/credentials.ts";
import { APP_SESSION_COOKIE } from "../http/app-origin.ts";

/** The Set-Cookie of a new app session, on an origin served over `protocol` ("http:" or "https:"). */
export function appSessionCookie(token: string, maxAgeS: number, protocol: string): string {
  return `${APP_SESSION_COOKIE}=${token}; Max-Age=${maxAgeS}; Path=/; HttpOnly; SameSite=Lax${protocol === "https:" ? "; Secure" : ""}`;
}

/** The request's app sessions for `instanceId` as sent (a browser sends one; any other is someone's mistake). */
export function appSessionOf(cookieHeader: string | null, instanceId: string): { token: string } | { refusal: string } {
  const sent = (cookieHeader ?? "").split(";").map((pair) => pair.trim()).filter((pair) => pair.startsWith(`${APP_SESSION_COOKIE}=`))
    .map((pair) => pair.slice(APP_SESSION_COOKIE.length + 1));
  if (sent.length === 0) return { refusal: "no app session: open this app from the dashboard (its Open button) or with POST /v1/instances/{id}/ports/{port}/open" };
  const token = sent.find((value) => appSessionTokens.ownerOf(value) === instanceId);
  return token === undefined ? { refusal: "the app session is not one of this app's: open this app from the dashboard" } : { token };
}
