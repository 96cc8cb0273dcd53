// The client's HTTP behaviour against a scripted server on a real socket: the 429s and odd answers
// that the real service gives only under load or behind a gateway.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createGpuClient, GpuApiError, ok } from "./index.ts";
import { retryAfterMs } from "./retry.ts";

type Script = (req: IncomingMessage, res: ServerResponse, body: string) => void;
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server | null = null;
afterEach(async () => {
  server?.close();
  server = null;
});

/** A server answering the n-th request with script[n] (the last one repeats); records what came. */
async function scripted(...script: Script[]): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += String(chunk);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    script[Math.min(seen.length, script.length) - 1]!(req, res, body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Script => (_req, res) =>
  void res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
const rateLimited = (retryAfter: string): Script => json(429, { error: "rate_limited", message: "slow down" }, { "retry-after": retryAfter });
const LAUNCH = { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" };

describe("typed client", () => {
  it("sends the key, and resolves with the answer's data", async () => {
    const { baseUrl, seen } = await scripted(json(200, { gpus: [] }));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test" });
    expect(await ok(api.GET("/v1/gpus"))).toEqual({ gpus: [] });
    expect(seen[0]!.headers.authorization).toBe("Bearer gpk_test");
  });

  it("retries a 429 after Retry-After, and a launch keeps its one Idempotency-Key and body across retries", async () => {
    const { baseUrl, seen } = await scripted(rateLimited("0"), rateLimited("0"), json(201, { id: "i-abcdefghijklmnop" }));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test" });
    expect(await ok(api.POST("/v1/instances", { body: LAUNCH }))).toEqual({ id: "i-abcdefghijklmnop" });
    expect(seen.length).toBe(3);
    const keys = new Set(seen.map((s) => s.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^launch-[0-9a-f]{32}$/);
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([LAUNCH, LAUNCH, LAUNCH]);
  });

  it("gives each logical launch its own key, and keeps a key the caller chose", async () => {
    const { baseUrl, seen } = await scripted(json(201, { id: "i-abcdefghijklmnop" }));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test" });
    await ok(api.POST("/v1/instances", { body: LAUNCH }));
    await ok(api.POST("/v1/instances", { body: LAUNCH }));
    await ok(api.POST("/v1/instances", { body: LAUNCH, headers: { "idempotency-key": "mine" } }));
    const [first, second, third] = seen.map((s) => s.headers["idempotency-key"]);
    expect(first).not.toBe(second);
    expect(third).toBe("mine");
    await ok(api.POST("/v1/instances/{id}/stop", { params: { path: { id: "i-abcdefghijklmnop" } } }));
    expect(seen[3]!.headers["idempotency-key"]).toBeUndefined();
  });

  it("stops retrying after the bounded number of attempts and throws the 429", async () => {
    const { baseUrl, seen } = await scripted(rateLimited("0"));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test", retry: { attempts: 3 } });
    const error = await ok(api.GET("/v1/me")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GpuApiError);
    expect(error).toMatchObject({ status: 429, error: "rate_limited", message: "slow down" });
    expect(seen.length).toBe(3);
  });

  it("does not wait out a Retry-After longer than its limit", async () => {
    const { baseUrl, seen } = await scripted(rateLimited("3600"));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test" });
    await expect(ok(api.GET("/v1/me"))).rejects.toMatchObject({ status: 429 });
    expect(seen.length).toBe(1);
  });

  it("turns an error answer into GpuApiError with status, error, message and request id", async () => {
    const { baseUrl } = await scripted(json(404, { error: "not_found", message: "no instance i-x in this account" }, { "x-request-id": "req_1" }));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test" });
    const error = await ok(api.GET("/v1/instances/{id}", { params: { path: { id: "i-x" } } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GpuApiError);
    expect({ ...(error as GpuApiError), message: (error as GpuApiError).message }).toEqual({
      name: "GpuApiError", status: 404, error: "not_found", message: "no instance i-x in this account", requestId: "req_1",
    });
  });

  it("describes an answer of another shape (a gateway's HTML) by its status", async () => {
    const { baseUrl } = await scripted((_req, res) => void res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>"));
    const api = createGpuClient({ baseUrl, apiKey: "gpk_test" });
    await expect(ok(api.GET("/v1/me"))).rejects.toMatchObject({ status: 502, error: "http_502", message: "HTTP 502: <h1>Bad gateway</h1>" });
  });
});

describe("Retry-After", () => {
  it.each([
    ["2", 2000],
    ["0", 0],
    ["Thu, 01 Jan 2026 00:00:05 GMT", 5000],
    ["Thu, 01 Jan 2025 00:00:00 GMT", 0],
    ["soon", null],
    [null, null],
  ])("%j waits %j ms", (value, expected) => {
    expect(retryAfterMs(value, Date.parse("2026-01-01T00:00:00Z"))).toBe(expected);
  });
});
