// Documentation of an instance web app's origin, `{instance id}-{port}.{APPS_DOMAIN}`. It is no route
// of this API: the Worker entry hands every request to such a host to workers/apps before the API
// sees it. So it is only registered here, as a path of its own on a server of its own.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { APP_SESSION_TTL_MS, APP_TICKET_TTL_MS } from "../../../durable-objects/contracts/credential-lifetimes.ts";
import { APP_TICKET_PARAM } from "../../http/app-origin.ts";
import type { ApiEnv } from "../context.ts";
import { ErrorBody } from "../schemas/common.ts";

const APP_PATH = "/{path}";
const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;

const APP_SERVER = {
  url: "{scheme}://{instance_id}-{port}.{apps_domain}",
  description: "An instance web app's own origin (the address POST /v1/instances/{id}/ports/{port}/open gives)",
  variables: {
    scheme: { enum: ["https", "http"], default: "https", description: "http when APPS_DOMAIN is a localhost name" },
    instance_id: { default: "i-abcdefghijklmnop" },
    port: { default: "8888", description: "One of the instance's HTTP ports" },
    apps_domain: { default: "apps.example.net", description: "The service's APPS_DOMAIN" },
  },
};

const AppParams = z.object({
  path: z.string().openapi({
    param: { name: "path", in: "path", description: "Any path, slashes included, passed on exactly as sent (with the query)" },
    example: "lab/tree",
  }),
});

const TicketQuery = z.object({
  [APP_TICKET_PARAM]: z.string().optional().openapi({
    param: { name: APP_TICKET_PARAM, in: "query", description: `The one-time ticket of an opened app's address (valid ${APP_TICKET_TTL_MS / 1000} s)` },
  }),
});

const DESCRIPTION = [
  "Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.",
  "POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the",
  `ticket is answered 302 to the same address without it, setting the cookie \`__Host-gpr_app\` over https (\`gpr_app\``,
  `on a local http stack; HttpOnly, SameSite=Lax, host-only, Path=/, Secure on https, at most ${APP_SESSION_TTL_MS / 3_600_000} h, bound to the`,
  "instance, the port and the instance's current run). Over https only the `__Host-` cookie counts, so no other app under",
  "the apps domain can plant a session.",
  "",
  "With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance",
  "exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only the session",
  "cookie is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.",
  "A browser's request from another site (`Sec-Fetch-Site: same-site` or `cross-site`, which includes every other app",
  "under the apps domain) is refused 403 unless it opens a page (a GET navigation).",
  "",
  "Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session",
  "ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and",
  "when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request",
  "budget (APPS_RATE_LIMIT_RPS, 200 a second).",
].join("\n");

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBody }, "text/html": { schema: z.string().openapi({ description: "A short page saying what to do" }) } },
});

const APP_ANSWERS = {
  302: {
    description: "A ticket redeemed: to the same address without it, with the app's session cookie",
    headers: z.object({ "set-cookie": z.string().openapi({ description: "__Host-gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure" }) }),
  },
  401: error("No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized)"),
  403: error("A browser's request from another site that does not open a page: a script's call, a form's POST, a subresource (forbidden)"),
  404: error("The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found)"),
  409: error("The instance is stopped or not running yet (not_running)"),
  413: error("Request body larger than 512 MB (payload_too_large)"),
  429: error("More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry"),
  502: error("Nothing answers on the port yet, or the host is offline (upstream_unavailable)"),
};

/** Registers the app origin, one operation per method, in the app's OpenAPI registry only. */
export function documentAppOrigin(app: OpenAPIHono<ApiEnv>): void {
  for (const method of METHODS) {
    app.openAPIRegistry.registerPath({
      method,
      path: APP_PATH,
      servers: [APP_SERVER],
      tags: ["instance web apps (their own origin)"],
      security: [{ appSession: [] }],
      summary: `${method.toUpperCase()} on an instance web app's own origin`,
      description: DESCRIPTION,
      request: { params: AppParams, query: TicketQuery },
      responses: {
        default: { description: "The response of the app inside the instance, passed through unchanged" },
        ...(method === "get" ? { 101: { description: "WebSocket upgrade accepted by the app; frames pass both ways" } } : {}),
        ...APP_ANSWERS,
      },
    });
  }
}
