// Baseline (f)'s Worker: hands each request to the one relay object with its target in a header, as the
// service's Worker hands a proxied request to the instance's MachineDO; /peer is the peer's WebSocket.
import { BareRelay, TARGET_HEADER } from "./relay-object.ts";

export { BareRelay };

interface FloorEnv {
  RELAYS: DurableObjectNamespace<BareRelay>;
}

export default {
  fetch(request: Request, env: FloorEnv): Response | Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/ready") return new Response("ready");
    const relay = env.RELAYS.getByName("host");
    if (url.pathname === "/peer") return relay.fetch(request);
    const target = JSON.stringify({ path: url.pathname + url.search, headers: [...request.headers] });
    return relay.fetch("http://relay/", { headers: { [TARGET_HEADER]: target } });
  },
} satisfies ExportedHandler<FloorEnv>;
