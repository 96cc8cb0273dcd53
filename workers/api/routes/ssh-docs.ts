// Documentation of GET /v1/instances/{id}/ssh. Like the proxy it is not a Hono route (the Worker entry
// hands it to workers/proxy/ssh.ts before the API sees the request), so it is only registered here.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../context.ts";
import { ErrorBody, INSTANCE_ID_DESCRIPTION } from "../schemas/common.ts";

const DESCRIPTION = [
  "A WebSocket upgrade whose binary messages carry the raw SSH byte stream both ways (as `cloudflared access ssh`",
  "carries it): use it as ssh's `ProxyCommand`, which `gpu ssh <id>` and `gpu ssh-config` set up (`gpu ssh-proxy <id>`).",
  "The SSH server is the host's own: its key is the instance's `ssh.host_key`; it accepts the account's SSH keys",
  "(/v1/ssh-keys) as they are when the connection opens. Sessions (`shell`, `exec`, with a PTY when asked) run in the",
  "instance's container as root; `ssh -L` reaches the instance's own ports only.",
  "",
  "Authenticate with an account API key or the instance's own `token`.",
].join("\n");

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });

export function documentSshPath(app: OpenAPIHono<ApiEnv>): void {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/instances/{id}/ssh",
    security: [{ bearerAuth: [] }, { instanceToken: [] }],
    summary: "SSH to the instance, over a WebSocket",
    description: DESCRIPTION,
    request: {
      params: z.object({ id: z.string().openapi({ param: { name: "id", in: "path", description: INSTANCE_ID_DESCRIPTION }, example: "i-abcdefghijklmnop" }) }),
    },
    responses: {
      101: { description: "Upgraded: binary messages are the SSH connection" },
      400: error("Not a WebSocket upgrade (bad_request)"),
      401: error("No key or instance token, or one that does not open this instance (unauthorized)"),
      404: error("No such instance in the account (not_found)"),
      409: error("The instance is not running (not_running)"),
      429: error("Too many requests (rate_limited); Retry-After says when to retry"),
      502: error("The host is offline, or its agent has no SSH server (upstream_unavailable)"),
    },
  });
}
