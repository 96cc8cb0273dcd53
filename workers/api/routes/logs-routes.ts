// /v1/instances/{id}/logs: a container's last lines as text, or followed as server-sent events (key
// or session). The AccountDO admits the caller and names the machine; the MachineDO streams the
// answer from the host's agent, and it passes through here as it comes. A followed stream ends when
// the key or session that opened it is revoked.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf, machineOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import { logsRequestUrl } from "../../../durable-objects/contracts/logs-request.ts";
import { requestIdOf } from "../../http/request-id.ts";
import type { ApiEnv } from "../context.ts";
import { InstanceIdParam } from "../schemas/common.ts";
import { DEFAULT_LOG_TAIL, LogEvent, LogsQuery } from "../schemas/logs.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const logsRoute = callerRoute([400, 404, 409, 502], {
  method: "get", path: "/instances/{id}/logs", summary: "Container logs, or follow them",
  description:
    "The container's last `tail` lines (1 to 10,000, default 200), stdout and stderr interleaved as they were written, " +
    "as `text/plain`: one line each. With `follow=true` the answer is `text/event-stream` and stays open: one event " +
    'per line, `data: {"t": "<ISO time>", "stream": "stdout" | "stderr", "line": "<text>"}` (see LogEvent), first ' +
    "the tail, then every new line until the container stops or the client leaves; a `: keep-alive` comment goes " +
    "out after 15 s without a line. A request whose `Accept` names `text/event-stream` gets the tail as such events " +
    "without following. A stopped instance's logs stay readable while its data is kept. 409 not_running when the " +
    "host has no logs for the instance (none yet, or removed with it); 502 upstream_unavailable when the host is offline.",
  request: { params: InstanceIdParam, query: LogsQuery },
  responses: {
    200: {
      description: "The lines as text, or as server-sent events",
      content: {
        "text/plain": { schema: z.string().openapi({ example: "INFO:     Started server process [1]\nINFO:     Application startup complete.\n" }) },
        "text/event-stream": {
          schema: z.string().openapi({
            description: "Server-sent events, each `data:` a LogEvent as JSON",
            example: 'data: {"t":"2026-11-21T12:00:00.000Z","stream":"stdout","line":"INFO:     Application startup complete."}\n\n',
          }),
        },
      },
    },
  },
});

export const logsRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
// Named in the document, for clients that read the events.
logsRoutes.openAPIRegistry.register("LogEvent", LogEvent);

logsRoutes.openapi(logsRoute, async (c) => {
  const { id } = c.req.valid("param");
  const { tail, follow } = c.req.valid("query");
  const { machine_id, opener } = unwrap(await accountOf(c.env, c.var.accountId).openProxy(c.var.credential, id, "account"));
  const following = follow === "true";
  const events = following || (c.req.header("accept") ?? "").includes("text/event-stream");
  const url = logsRequestUrl({
    instanceId: id, tail: tail ?? DEFAULT_LOG_TAIL, follow: following, format: events ? "events" : "text", requestId: requestIdOf(c.req.raw),
    opener,
  });
  const answer = await machineOf(c.env, machine_id).fetch(url);
  // Headers of another object's response are immutable; the copy (its body streamed, not copied) takes the session cookie.
  return new Response(answer.body, answer);
});
