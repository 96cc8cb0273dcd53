// Test helpers for instance web apps in workerd: opening one (POST .../open with a key or a session),
// following its ticket to the app's session cookie, and requests on the app's origin as a browser
// sends them.
import { env, exports } from "cloudflare:workers";
import { call, callJson, type CallOptions } from "./api-client.ts";
import { browser } from "./session-client.ts";

/** `{id}-{port}.{APPS_DOMAIN}`, over http (APPS_DOMAIN is a localhost name in the tests). */
export const appBase = (instanceId: string, port: number) => `http://${instanceId}-${port}.${env.APPS_DOMAIN}`;

export type Opener = { key: string } | { session: string };

const openerOptions = (opener: Opener): CallOptions => ("key" in opener ? { key: opener.key } : { headers: browser(opener.session) });

/** POST /v1/instances/{id}/ports/{port}/open. */
export const openApp = (instanceId: string, port: number | string, opener: Opener) =>
  callJson<{ url: string; expires_at: string; error?: string }>("POST", `/v1/instances/${instanceId}/ports/${port}/open`, openerOptions(opener));

/** The app URL with a fresh ticket; throws unless opened. */
export async function ticketUrl(instanceId: string, port: number, opener: Opener): Promise<string> {
  const opened = await openApp(instanceId, port, opener);
  if (opened.status !== 200) throw new Error(`open failed: ${opened.status} ${JSON.stringify(opened.body)}`);
  return opened.body.url;
}

/** A GET of an absolute URL (an app origin's) through the Worker, as a browser sends it, not following a redirect. */
export function visit(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(new Request(url, { headers: { "cf-connecting-ip": "10.0.0.1", ...headers }, redirect: "manual" }));
}

/** The gpr_app cookie a response sets, or null. */
export function appCookie(response: Response): string | null {
  const line = response.headers.getSetCookie().find((c) => c.startsWith("gpr_app="));
  return line ? line.slice("gpr_app=".length).split(";")[0]! : null;
}

/** Opens the app and follows its ticket: the app session's cookie value. */
export async function appSession(instanceId: string, port: number, opener: Opener): Promise<string> {
  const response = await visit(await ticketUrl(instanceId, port, opener));
  const cookie = appCookie(response);
  if (response.status !== 302 || cookie === null) throw new Error(`ticket not redeemed: ${response.status} ${await response.text()}`);
  return cookie;
}

/** A request on the app's origin with its session cookie (and `cookies` of the app's own before it). */
export function appCall(method: string, instanceId: string, port: number, path: string, session: string | null, options: CallOptions & { cookies?: string } = {}) {
  const cookie = [options.cookies, session === null ? null : `gpr_app=${session}`].filter(Boolean).join("; ");
  return call(method, path, { ...options, base: appBase(instanceId, port), headers: { ...(cookie ? { cookie } : {}), ...options.headers } });
}
