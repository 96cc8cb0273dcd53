// The origins of instance web apps: every (instance, port) is served on a host of its own,
// `{instance id}-{port}.{APPS_DOMAIN}`, so an app's JavaScript never runs on the API's origin. The
// API builds these addresses (POST .../open) and the Worker entry recognises them (workers/apps).

/** The cookie of an app's session on its origin over http, the local stack's (workers/apps/app-cookie.ts). */
export const APP_SESSION_COOKIE = "gpr_app";

/**
 * Over https, the same cookie under the `__Host-` prefix: a browser takes it only from the app's own
 * host (Secure, Path=/, no Domain), so another app under the apps domain, same-site with it, cannot
 * plant or overwrite one with `Domain={APPS_DOMAIN}`.
 */
export const SECURE_APP_SESSION_COOKIE = `__Host-${APP_SESSION_COOKIE}`;

/** The app session's cookie name on an origin served over `protocol` ("http:" or "https:"). */
export const appSessionCookieName = (protocol: string) => (protocol === "https:" ? SECURE_APP_SESSION_COOKIE : APP_SESSION_COOKIE);

/** The query parameter of an app address that carries its one-time ticket. */
export const APP_TICKET_PARAM = "gpr_ticket";

export interface AppTarget {
  instanceId: string;
  port: number;
}

/** Hosts under a localhost name resolve to this machine, which serves plain HTTP; anything else is HTTPS. */
export function appsScheme(appsDomain: string): "http" | "https" {
  const hostname = appsDomain.replace(/:\d+$/, "").toLowerCase();
  return hostname === "localhost" || hostname.endsWith(".localhost") ? "http" : "https";
}

export function appOrigin(appsDomain: string, target: AppTarget): string {
  return `${appsScheme(appsDomain)}://${target.instanceId}-${target.port}.${appsDomain.toLowerCase()}`;
}

const APP_LABEL = /^(i-[a-z2-7]{16})-([1-9][0-9]{0,4})$/;

/**
 * What `host` (as in a URL: name and port) is: not an app host (null: the API's, or anything not
 * under APPS_DOMAIN), an app's, or "unknown" (under APPS_DOMAIN but naming no instance and port).
 */
export function matchAppHost(host: string, appsDomain: string): AppTarget | "unknown" | null {
  const suffix = `.${appsDomain.toLowerCase()}`;
  const lower = host.toLowerCase();
  if (!appsDomain || !lower.endsWith(suffix)) return null;
  const match = APP_LABEL.exec(lower.slice(0, -suffix.length));
  const port = Number(match?.[2]);
  if (!match || port > 65535) return "unknown";
  return { instanceId: match[1]!, port };
}
