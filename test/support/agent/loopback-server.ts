// Test servers standing in for container ports: listening on a free loopback port, and shut with
// every connection cut (a proxied stream a test left open must not keep the server up).
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export async function listenOnLoopback(server: Server): Promise<{ host: string; port: number }> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { host: "127.0.0.1", port: (server.address() as AddressInfo).port };
}

export function shutServer(server: Server): void {
  server.closeAllConnections();
  server.close();
}
