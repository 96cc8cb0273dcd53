// Baselines for `npm run bench`, measured in the same workerd as the service: a trivial route and a
// pass-through that fetches a loopback upstream directly (no Durable Object, no agent); and for its
// soak mode, a machine's open proxied streams; for the SSH slow-reader test, the binary WebSocket
// bytes a machine's agent has sent. Only the dev Worker has them (dev-main.ts), and even
// there they are off unless the var BENCH_ROUTES is "1": the pass-through is an open relay.
import type { Env } from "../../core/env.ts";
import { agentWsBytesOf, openStreamsOf } from "./dev-machine-do.ts";

const PASSTHROUGH = /^\/bench\/passthrough\/([0-9]{1,5})(\/[^?#]*)?(\?[^#]*)?$/;
const OPEN_STREAMS = /^\/bench\/open-streams\/([0-9]{1,9})$/;
const AGENT_WS_BYTES = /^\/bench\/agent-ws-bytes\/([0-9]{1,9})$/;

export async function benchRoute(request: Request, env: Env): Promise<Response | null> {
  if (env.BENCH_ROUTES !== "1") return null;
  const url = new URL(request.url);
  if (url.pathname === "/bench/noop") return new Response(null, { status: 204 });
  const machine = OPEN_STREAMS.exec(url.pathname);
  if (machine) return Response.json({ open_streams: await openStreamsOf(env, Number(machine[1])) });
  const sender = AGENT_WS_BYTES.exec(url.pathname);
  if (sender) return Response.json({ bytes: await agentWsBytesOf(env, Number(sender[1])) });
  const match = PASSTHROUGH.exec(url.pathname + url.search);
  if (!match) return null;
  const [, port, path = "/", query = ""] = match;
  return fetch(`http://127.0.0.1:${port}${path}${query}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
}
