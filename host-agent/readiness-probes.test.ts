// Readiness probes against a real HTTP server standing in for a container port: refused, then
// answering; what counts as ready (any status below 500); a port failing again; stopping.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { HttpPort, PortReadiness } from "../protocol/messages.ts";
import { freePort } from "./dev/free-port.ts";
import type { Endpoint } from "./runtime/runtime.ts";
import { PROBE_USER_AGENT, ReadinessProbes } from "./readiness-probes.ts";
import { shutServer } from "../test/support/agent/loopback-server.ts";
import { waitUntil } from "../test/support/agent/wait-until.ts";

const ID = "i-readinessprobesa";
const FAST = { untilReadyMs: 20, whileReadyMs: 20, timeoutMs: 500 };
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) shutServer(server);
});

/** A server on `port` answering `status()`, recording each request's path and headers. */
async function serve(port: number, status: () => number): Promise<{ requests: { url: string; headers: IncomingHttpHeaders }[] }> {
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    res.writeHead(status()).end();
  });
  servers.push(server);
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return { requests };
}

function probesFor(ports: HttpPort[], endpoints: Map<number, Endpoint | null>) {
  const reports: PortReadiness[] = [];
  const probes = new ReadinessProbes(
    { httpPorts: async () => ports, resolvePort: async (_id, port) => endpoints.get(port) ?? null },
    (r) => reports.push(r),
    FAST,
  );
  return { probes, reports };
}

describe("readiness probes", () => {
  it("reports a port ready once, when something first answers its path, with the container port as Host", async () => {
    const hostPort = await freePort();
    const { probes, reports } = probesFor([{ port: 8000, path: "/health?full=1" }], new Map([[8000, { host: "127.0.0.1", port: hostPort }]]));
    probes.start(ID);
    expect(probes.snapshot()).toEqual([{ instance_id: ID, ready_ports: [] }]);
    // Refused for a while, as a model server that is still loading.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reports).toEqual([]);
    const { requests } = await serve(hostPort, () => 200);
    await waitUntil(() => (reports.length > 0 ? true : undefined), "ready");
    await waitUntil(() => (requests.length >= 3 ? true : undefined), "checks while ready");
    expect(reports).toEqual([{ instance_id: ID, ready_ports: [8000] }]);
    expect(requests[0]).toMatchObject({ url: "/health?full=1", headers: { host: "localhost:8000", "user-agent": PROBE_USER_AGENT } });
    expect(probes.snapshot()).toEqual([{ instance_id: ID, ready_ports: [8000] }]);
    probes.close();
  });

  it("counts any answer below 500 (a 404 too) and not a 500; a port that fails again is reported not ready, then ready", async () => {
    const [a, b] = [await freePort(), await freePort()];
    let bStatus = 503;
    await serve(a, () => 404);
    await serve(b, () => bStatus);
    const endpoints = new Map([[8000, { host: "127.0.0.1", port: a }], [8188, { host: "127.0.0.1", port: b }]]);
    const { probes, reports } = probesFor([{ port: 8000, path: "/" }, { port: 8188, path: "/" }], endpoints);
    probes.start(ID);
    await waitUntil(() => (reports.length === 1 ? true : undefined), "the 404 port ready");
    bStatus = 200;
    await waitUntil(() => (reports.length === 2 ? true : undefined), "both ready");
    bStatus = 500;
    await waitUntil(() => (reports.length === 3 ? true : undefined), "8188 failing");
    bStatus = 302;
    await waitUntil(() => (reports.length === 4 ? true : undefined), "8188 back");
    expect(reports.map((r) => r.ready_ports)).toEqual([[8000], [8000, 8188], [8000], [8000, 8188]]);
    probes.close();
  });

  it("stops checking when the container stops, and when its port has no endpoint any more (it no longer runs)", async () => {
    const hostPort = await freePort();
    const { requests } = await serve(hostPort, () => 200);
    const endpoints = new Map<number, Endpoint | null>([[8000, { host: "127.0.0.1", port: hostPort }]]);
    const { probes, reports } = probesFor([{ port: 8000, path: "/" }], endpoints);
    probes.start(ID);
    await waitUntil(() => (reports.length === 1 ? true : undefined), "ready");
    probes.stop(ID);
    expect(probes.probing(ID)).toBe(false);
    const seen = requests.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requests.length).toBeLessThanOrEqual(seen + 1);
    expect(probes.snapshot()).toEqual([]);

    probes.start(ID);
    await waitUntil(() => (reports.length === 2 ? true : undefined), "ready in the new run");
    endpoints.set(8000, null);
    await waitUntil(() => (probes.probing(ID) ? undefined : true), "probing to end by itself");
    expect(reports).toEqual([{ instance_id: ID, ready_ports: [8000] }, { instance_id: ID, ready_ports: [8000] }]);
  });

  it("probes nothing for a container without HTTP ports", async () => {
    const { probes, reports } = probesFor([], new Map());
    probes.start(ID);
    expect(probes.snapshot()).toEqual([{ instance_id: ID, ready_ports: [] }]);
    expect(reports).toEqual([]);
    probes.close();
    expect(probes.snapshot()).toEqual([]);
  });
});

