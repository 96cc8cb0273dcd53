// The app session cookie: an instance web app's session on its own origin (`__Host-gpr_app` over
// https, `gpr_app` on the local stack's http). HttpOnly (the app's JavaScript never reads it),
// SameSite=Lax, host-only (no Domain: no other app origin gets it), Path=/, Secure on https, and no
// longer than the session the MachineDO keeps.
import { appSessionTokens } from "../../core/credentials.ts";
import { appSessionCookieName } from "../http/app-origin.ts";

/** The Set-Cookie of a new app session, on an origin served over `protocol` ("http:" or "https:"). */
export function appSessionCookie(token: string, maxAgeS: number, protocol: string): string {
  return `${appSessionCookieName(protocol)}=${token}; Max-Age=${maxAgeS}; Path=/; HttpOnly; SameSite=Lax${protocol === "https:" ? "; Secure" : ""}`;
}

/**
 * The request's app sessions for `instanceId` as sent on an origin served over `protocol` (a browser
 * sends one; any other is someone's mistake). Over https only the `__Host-` cookie counts.
 */
export function appSessionOf(cookieHeader: string | null, instanceId: string, protocol: string): { token: string } | { refusal: string } {
  const name = appSessionCookieName(protocol);
  const sent = (cookieHeader ?? "").split(";").map((pair) => pair.trim()).filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
  if (sent.length === 0) return { refusal: "no app session: open this app from the dashboard (its Open button) or with POST /v1/instances/{id}/ports/{port}/open" };
  const token = sent.find((value) => appSessionTokens.ownerOf(value) === instanceId);
  return token === undefined ? { refusal: "the app session is not one of this app's: open this app from the dashboard" } : { token };
}
