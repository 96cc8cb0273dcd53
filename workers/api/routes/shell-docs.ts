// Documentation of GET /v1/instances/{id}/ssh and GET /v1/instances/{id}/terminal. Like the proxy they
// are not Hono routes (the Worker entry hands them to workers/proxy/ssh.ts and terminal.ts before the
// API sees the request), so they are only registered here.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../context.ts";
import { ErrorBody, INSTANCE_ID_DESCRIPTION } from "../schemas/common.ts";

const SSH_DESCRIPTION = [
  "A WebSocket upgrade whose binary messages carry the raw SSH byte stream both ways (as `cloudflared access ssh`",
  "carries it): use it as ssh's `ProxyCommand`, which `gpu ssh <id>` and `gpu ssh-config` set up (`gpu ssh-proxy <id>`).",
  "The SSH server is the host's own: its key is the instance's `ssh.host_key`; it accepts the account's SSH keys",
  "(/v1/ssh-keys) as they are when the connection opens. Sessions (`shell`, `exec`, with a PTY when asked) run in the",
  "instance's container as root; the `sftp` subsystem runs the image's own sftp-server (sftp, scp); `ssh -L` reaches",
  "the instance's own ports only.",
  "",
  "Authenticate with an account API key or the instance's own `token`.",
].join("\n");

const TERMINAL_DESCRIPTION = [
  "The dashboard's terminal: a WebSocket upgrade to a login shell in the instance's container, on a terminal of",
  "`cols` × `rows` (1 to 1000 each; 80 × 24 when left out). Text messages are keystrokes, except",
  '`{"type":"resize","cols":C,"rows":R}`; binary messages are the shell\'s output. The shell\'s end closes the',
  "WebSocket (1000) with its exit status as the reason; closing it ends the shell (the container and its data stay).",
  "",
  "Only a signed-in browser opens it: the session cookie, with `Origin` exactly this service's (else 403), as a",
  "browser sends the cookie with any site's WebSocket. From a shell, use SSH (`gpu ssh <id>`).",
].join("\n");

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });
const instanceParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path", description: INSTANCE_ID_DESCRIPTION }, example: "i-abcdefghijklmnop" }) });
const sizeParam = (name: "cols" | "rows", example: number) =>
  z.string().optional().openapi({ param: { name, in: "query", description: `The terminal's ${name === "cols" ? "columns" : "rows"} when it opens (1 to 1000)` }, example: String(example) });
const sharedRefusals = {
  404: error("No such instance in the account (not_found)"),
  409: error("The instance is not running (not_running)"),
  429: error("Too many requests (rate_limited); Retry-After says when to retry"),
};

export function documentShellPaths(app: OpenAPIHono<ApiEnv>): void {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/instances/{id}/ssh",
    security: [{ bearerAuth: [] }, { instanceToken: [] }],
    summary: "SSH to the instance, over a WebSocket",
    description: SSH_DESCRIPTION,
    request: { params: instanceParam },
    responses: {
      101: { description: "Upgraded: binary messages are the SSH connection" },
      400: error("Not a WebSocket upgrade (bad_request)"),
      401: error("No key or instance token, or one that does not open this instance (unauthorized)"),
      ...sharedRefusals,
      502: error("The host is offline, or its agent has no SSH server (upstream_unavailable)"),
    },
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/v1/instances/{id}/terminal",
    security: [{ sessionCookie: [] }],
    summary: "A terminal in the instance, over a WebSocket (the dashboard's)",
    description: TERMINAL_DESCRIPTION,
    request: { params: instanceParam, query: z.object({ cols: sizeParam("cols", 80), rows: sizeParam("rows", 24) }) },
    responses: {
      101: { description: "Upgraded: a shell on a terminal" },
      400: error("Not a WebSocket upgrade (bad_request), or `cols`/`rows` out of range (invalid)"),
      401: error("No session cookie, or one that has ended (unauthorized); an API key does not open a terminal"),
      403: error("`Origin` is missing or not this service (forbidden)"),
      ...sharedRefusals,
      502: error("The host is offline (upstream_unavailable)"),
    },
  });
}
