// What a browser is told about the service's own responses, and the plain-http redirect. The API,
// the operator API and the dashboard share one origin, so one policy covers them; the path proxy
// carries an instance's answers on that same origin, so they are sandboxed and may set no cookie
// there; an instance web app's own origin (workers/apps) is the app's to describe.
import { withHeaders } from "./response-headers.ts";

/**
 * The dashboard's scripts come from the origin alone (vite builds no inline script), it is framed by
 * no page, and neither a <base> nor a plugin can change where it loads code from. Its stylesheets
 * come from the origin too, but the terminal (xterm.js) writes its measured size and colours into
 * <style> elements of its own: inline styles are allowed, and with images, fonts and connections
 * held to the origin, an injected style can neither load nor send anything elsewhere.
 */
const ORIGIN_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "connect-src 'self'",
  "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'", "form-action 'self'",
].join("; ");

/** Kept for a year once a browser has seen it over https. */
const HSTS = "max-age=31536000";

/** Headers for every response of the service's own origin (API, operator API, dashboard). */
export function withOriginHeaders(response: Response, url: URL): Response {
  if (response.status === 101) return response;
  return withHeaders(response, (headers) => {
    headers.set("content-security-policy", ORIGIN_POLICY);
    headers.set("x-content-type-options", "nosniff");
    headers.set("referrer-policy", "same-origin");
    if (url.protocol === "https:") headers.set("strict-transport-security", HSTS);
  });
}

/**
 * An instance's answer through the path proxy: it runs in a sandbox (no script reaches the API's
 * origin, its session or its storage), and it sets no cookie on the API's origin.
 */
export function withProxiedHeaders(response: Response, url: URL): Response {
  if (response.status === 101) return response;
  return withHeaders(response, (headers) => {
    headers.delete("set-cookie");
    headers.set("content-security-policy", "sandbox");
    headers.set("x-content-type-options", "nosniff");
    if (url.protocol === "https:") headers.set("strict-transport-security", HSTS);
  });
}

/**
 * A plain-http request to a public host goes to https, before anything reads its credentials (which
 * have crossed the network in clear once; the redirect keeps it from happening again). Loopback
 * addresses and the special-use names that never leave a machine (RFC 6761: localhost, .localhost,
 * .test) stay on http, for the local stack.
 */
export function httpsRedirect(url: URL): Response | null {
  if (url.protocol !== "http:" || isLocalHost(url.hostname)) return null;
  const secure = new URL(url);
  secure.protocol = "https:";
  return new Response(null, { status: 308, headers: { location: secure.href } });
}

function isLocalHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost") || name === "test" || name.endsWith(".test")) return true;
  if (name === "[::1]") return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}
