// Documentation of /v1/instances/{id}/proxy/{port}/{path}. The proxy is not a Hono route (the Worker
// entry hands it to workers/proxy before the API sees the request), so it is only registered here.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../context.ts";
import { ErrorBody, INSTANCE_ID_DESCRIPTION } from "../schemas/common.ts";

const PROXY_PATH = "/v1/instances/{id}/proxy/{port}/{path}";
const METHODS = ["get", "post", "put", "patch", "delete", "head", "options"] as const;

const ProxyParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: INSTANCE_ID_DESCRIPTION }, example: "i-abcdefghijklmnop" }),
  port: z.number().int().min(1).max(65535).openapi({ param: { name: "port", in: "path", description: "The TCP port inside the instance its server listens on" }, example: 8000 }),
  path: z.string().openapi({
    param: { name: "path", in: "path", description: "The rest of the path, slashes included, passed on exactly as sent (with the query)" },
    example: "v1/chat/completions",
  }),
});

const DESCRIPTION = [
  "Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to",
  "`http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies",
  "stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.",
  "WebSocket messages are at most 1,048,571 bytes (1 MiB − 5) either way; a bigger one closes that socket with 1009.",
  "",
  "Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and",
  "nothing else). The caller's `Authorization` header and cookies are not forwarded; send",
  "`X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets",
  "`X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.",
  "",
  "Any status the server inside answers is passed through; the errors below come from the proxy itself.",
].join("\n");

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });
const PROXY_ERRORS = {
  400: error("The port is not an integer from 1 to 65535 (invalid)"),
  401: error("No key or instance token, or one that does not open this instance (unauthorized)"),
  404: error("No such instance in the account (not_found)"),
  409: error("The instance is not running (not_running)"),
  413: error("Request body larger than 512 MB (payload_too_large)"),
  429: error("Too many requests (rate_limited); Retry-After says when to retry"),
  502: error("Nothing answers on the port yet, or the host is offline (upstream_unavailable)"),
};

/** Registers the proxy path, one operation per method, in the app's OpenAPI registry only. */
export function documentProxyPath(app: OpenAPIHono<ApiEnv>): void {
  for (const method of METHODS) {
    app.openAPIRegistry.registerPath({
      method,
      path: PROXY_PATH,
      security: [{ bearerAuth: [] }, { instanceToken: [] }],
      summary: `Proxy ${method.toUpperCase()} to a port inside the instance`,
      description: DESCRIPTION,
      request: { params: ProxyParams },
      responses: {
        default: { description: "The response of the server inside the instance, passed through unchanged" },
        ...(method === "get" ? { 101: { description: "WebSocket upgrade accepted by the server inside; frames pass both ways" } } : {}),
        ...PROXY_ERRORS,
      },
    });
  }
}
