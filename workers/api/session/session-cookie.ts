// The `gpr_session` cookie: HttpOnly, SameSite=Lax, Path=/, Secure except on http://localhost and
// http://127.0.0.1 (where a browser would not send a Secure cookie over plain HTTP). It lives as
// long as the server keeps an idle session, and is renewed on every use.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { personSessionOwner } from "../../../core/credentials.ts";
import { SESSION_IDLE_MS } from "../../../durable-objects/contracts/credential-lifetimes.ts";
import { SESSION_COOKIE } from "../../http/browser-session.ts";

const isLocalHttp = (url: URL) => url.protocol === "http:" && (url.hostname === "localhost" || url.hostname === "127.0.0.1");

function options(c: Context) {
  return { httpOnly: true, sameSite: "Lax", path: "/", secure: !isLocalHttp(new URL(c.req.url)) } as const;
}

/** The session token and the person whose object checks it, when the request carries a well-formed session cookie. */
export function sessionFrom(c: Context): { token: string; personId: string } | null {
  const token = getCookie(c, SESSION_COOKIE);
  const personId = token ? personSessionOwner(token) : null;
  return token && personId ? { token, personId } : null;
}

export function setSessionCookie(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, { ...options(c), maxAge: SESSION_IDLE_MS / 1000 });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, options(c));
}
