// Free TCP ports on 127.0.0.1: one the kernel assigns (for a listener bound at once), and one for a dev
// container, which binds its ports only once its model has "loaded", seconds later.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** A free port from the kernel's ephemeral range, for a server that listens on it right away. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port assigned"))));
    });
  });
}

const LOWEST_LATE_PORT = 20_000;
const LATE_PORT_TRIES = 50;

/**
 * A free port below the kernel's ephemeral range, none of `taken`. A port from that range, free now, can
 * become the local end of any outbound connection on the machine before a late listener binds it (a
 * test run opens thousands), and the listener then fails with EADDRINUSE; the kernel never picks one
 * below the range on its own. Where the range leaves too little room below it: `freePort`.
 */
export async function freeLatePort(taken: ReadonlySet<number>): Promise<number> {
  const below = ephemeralRangeStart();
  if (below - LOWEST_LATE_PORT < 1_000) return freePort();
  for (let i = 0; i < LATE_PORT_TRIES; i++) {
    const port = LOWEST_LATE_PORT + Math.floor(Math.random() * (below - LOWEST_LATE_PORT));
    if (!taken.has(port) && (await bindable(port))) return port;
  }
  return freePort();
}

/** Linux's net.ipv4.ip_local_port_range; elsewhere IANA's 49152. */
function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : 49_152;
  } catch {
    return 49_152;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
