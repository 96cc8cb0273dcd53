// Which headers cross the proxy, decided here once: the upstream request headers (computed by the
// Worker; the MachineDO and the agent pass them on) and the response headers the client gets back
// (applied by the Worker to a proxied exchange's, by the MachineDO to its files' and logs').
// Hop-by-hop headers (standards/hop-by-hop.ts) belong to one connection and never cross, in either
// direction.
import { hopByHopIn } from "../../standards/hop-by-hop.ts";

/** How one kind of proxied origin treats what the caller sent it. */
export interface UpstreamPolicy {
  /**
   * "replace": the caller's Authorization (its credential for us) never reaches the upstream, and
   * X-Upstream-Authorization becomes the upstream's Authorization. "pass": Authorization passes.
   */
  readonly authorization: "replace" | "pass";
  /** Cookies removed from the caller's Cookie header: all of them, or only the named ones. */
  readonly dropCookies: "all" | readonly string[];
  /** X-Forwarded-Prefix: the public path the app lives under, or null for an origin of its own. */
  readonly prefix: string | null;
}

/** The path proxy (/v1/instances/{id}/proxy/{port}/...): the caller's credentials stay with us. */
export function pathProxyPolicy(prefix: string): UpstreamPolicy {
  return { authorization: "replace", dropCookies: "all", prefix };
}

/**
 * An instance web app on an origin of its own: Authorization and the app's cookies belong to the app
 * there, so they pass; only the platform's own cookies (`sessionCookies`, its app session under
 * each of its names) are removed, and there is no path prefix.
 */
export function appOriginPolicy(sessionCookies: readonly string[]): UpstreamPolicy {
  return { authorization: "pass", dropCookies: sessionCookies, prefix: null };
}

/** Where the request came from, for the X-Forwarded-* headers. */
export interface Forwarded {
  clientIp: string;
  /** The URL the caller asked for. */
  url: string;
}

/**
 * Set by the platform in front of us, or used between the Worker and its objects; and what says
 * where a request came from, which the upstream hears from us alone (a client's own X-Forwarded-For
 * or X-Real-IP would let it pass for any address to an app that trusts its proxy).
 */
const PLATFORM_PREFIXES = ["cf-", "x-gpr-", "x-forwarded-"];
const REPLACED = new Set(["host", "authorization", "cookie", "x-upstream-authorization", "forwarded", "x-real-ip"]);

/** The headers the upstream receives, as [name, value] pairs, for a request under `policy`. */
export function upstreamRequestHeaders(incoming: Headers, policy: UpstreamPolicy, forwarded: Forwarded): [string, string][] {
  const hopByHop = hopByHopIn([incoming.get("connection") ?? ""]);
  const headers = new Headers();
  for (const [name, value] of incoming) {
    if (REPLACED.has(name) || PLATFORM_PREFIXES.some((prefix) => name.startsWith(prefix)) || hopByHop(name)) continue;
    headers.set(name, value);
  }
  const authorization = incoming.get(policy.authorization === "replace" ? "x-upstream-authorization" : "authorization");
  if (authorization) headers.set("authorization", authorization);
  const cookie = keptCookies(incoming.get("cookie"), policy.dropCookies);
  if (cookie) headers.set("cookie", cookie);
  const url = new URL(forwarded.url);
  headers.set("x-forwarded-for", forwarded.clientIp);
  headers.set("x-forwarded-proto", url.protocol.replace(":", ""));
  headers.set("x-forwarded-host", incoming.get("host") ?? url.host);
  if (policy.prefix !== null) headers.set("x-forwarded-prefix", policy.prefix);
  return [...headers];
}

function keptCookies(header: string | null, drop: "all" | readonly string[]): string | null {
  if (header === null || drop === "all") return null;
  const kept = header.split(";").map((cookie) => cookie.trim()).filter((cookie) => cookie && !drop.includes(cookie.split("=", 1)[0]!.trim()));
  return kept.length > 0 ? kept.join("; ") : null;
}

/** The subprotocols a WebSocket client offered, in its order of preference. */
export function offeredSubprotocols(incoming: Headers): string[] {
  return (incoming.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim()).filter(Boolean);
}

/** Response headers that say what the platform did: the client hears them from us alone, never from an upstream. */
const PLATFORM_RESPONSE_PREFIX = "x-gpr-";
const REQUEST_ID = "x-request-id";
const NO_CONNECTION_HEADER = hopByHopIn([]);

/**
 * The upstream's response headers as the client will see them; repeated names stay repeated.
 * `requestId`: ours, which replaces any the upstream sent, so the response is whole as built (a
 * header set on a Response afterwards costs as much again, docs/benchmarks.md).
 */
export function clientResponseHeaders(pairs: readonly [string, string][], requestId: string | null = null): Headers {
  let connection: string[] | null = null;
  for (const [name, value] of pairs) if (name.length === 10 && name.toLowerCase() === "connection") (connection ??= []).push(value);
  const hopByHop = connection === null ? NO_CONNECTION_HEADER : hopByHopIn(connection);
  const headers = new Headers();
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    if (hopByHop(lower) || lower.startsWith(PLATFORM_RESPONSE_PREFIX) || (requestId !== null && lower === REQUEST_ID)) continue;
    headers.append(name, value);
  }
  if (requestId !== null) headers.set(REQUEST_ID, requestId);
  return headers;
}
