// The dev container server as a real child process: readiness delay, echo, SSE, bytes, WebSocket.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startDevServerChild, type DevServerChild } from "../../../test/support/agent/dev-server-child.ts";
import { readEventArrivals } from "../../../test/support/agent/event-arrivals.ts";
import { healthAnswers, waitUntil } from "../../../test/support/agent/wait-until.ts";

let server: DevServerChild;
let base: string;

beforeAll(async () => {
  server = await startDevServerChild([8000, 8001]);
  base = `http://127.0.0.1:${server.ports[0]}`;
});
afterAll(() => server.stop());

describe("dev container server", () => {
  it("refuses connections during the ready delay, then answers /health on every port", async () => {
    const slow = await startDevServerChild([8000], { DEV_READY_DELAY_MS: "700" }, false);
    const port = slow.ports[0] ?? 0;
    try {
      expect(await healthAnswers(port)).toBe(false);
      await waitUntil(async () => ((await healthAnswers(port)) ? true : undefined), "ready");
    } finally {
      await slow.stop();
    }
    for (const port of server.ports) expect(await healthAnswers(port)).toBe(true);
  });

  it("echoes the raw path, raw query, joined repeated headers and the streamed body's sha256", async () => {
    const body = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    const echoed = await rawRequest(server.ports[0] ?? 0, "PUT", "/echo/a%2Fb/%7Ex?q=%20&r", { "X-Dup": ["1", "2"] }, body);
    expect(echoed).toEqual({
      method: "PUT",
      path: "/echo/a%2Fb/%7Ex",
      query: "q=%20&r",
      headers: expect.objectContaining({ "x-dup": "1, 2", "content-length": String(body.byteLength) }),
      body_bytes: body.byteLength,
      body_sha256: createHash("sha256").update(body).digest("hex"),
    });
    const noQuery = (await (await fetch(`${base}/echo/`)).json()) as { query: string; body_bytes: number };
    expect(noQuery).toMatchObject({ query: "", body_bytes: 0 });
  });

  it("streams server-sent events one by one, interval apart", async () => {
    const res = await fetch(`${base}/sse?n=3&interval_ms=150`);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { text, reads, events } = await readEventArrivals(res);
    expect(text).toBe('data: {"i": 0}\n\ndata: {"i": 1}\n\ndata: {"i": 2}\n\n');
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(events.at(-1)!.atMs - events[0]!.atMs).toBeGreaterThanOrEqual(250);
  });

  it("streams exactly n bytes of the seeded payload, whose digest it reports; no two of its blocks alike", async () => {
    const res = await fetch(`${base}/bytes?n=200000`);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(200000);
    expect(res.headers.get("content-length")).toBe("200000");
    const reported = (await (await fetch(`${base}/bytes/sha256?n=200000`)).json()) as { bytes: number; sha256: string };
    expect(reported).toEqual({ bytes: 200000, sha256: createHash("sha256").update(bytes).digest("hex") });
    const blocks = Array.from({ length: 3 }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536).toString("hex"));
    expect(new Set(blocks).size).toBe(3);
    const chunked = await fetch(`${base}/bytes?n=1000&chunked=1`);
    expect(chunked.headers.get("content-length")).toBeNull();
    expect(chunked.headers.get("transfer-encoding")).toBe("chunked");
    expect((await chunked.arrayBuffer()).byteLength).toBe(1000);
  });

  it("serves the fast routes: n bytes of the pattern with Content-Length, a sink answering the count, 2-byte health, and refusals", async () => {
    const n = 3 * (1 << 20) + 5;
    const res = await fetch(`${base}/fast/bytes?n=${n}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(n));
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(n);
    expect([bytes[0], bytes[255], bytes[256], bytes[(1 << 20) + 3], bytes[n - 1]]).toEqual([0, 255, 0, 3, (n - 1) % 256]);
    const sink = await fetch(`${base}/fast/sink`, { method: "POST", body: Buffer.alloc(2 * (1 << 20) + 1, 9) });
    expect([sink.status, await sink.text()]).toEqual([200, String(2 * (1 << 20) + 1)]);
    expect(await (await fetch(`${base}/fast/health`)).text()).toBe("ok");
    expect((await fetch(`${base}/fast/bytes?n=-1`)).status).toBe(400);
    expect((await fetch(`${base}/fast/bytes`)).status).toBe(400);
    expect((await fetch(`${base}/fast/other`)).status).toBe(404);
    expect((await fetch(`${base}/fast/sink`)).status).toBe(404);
  });

  it("echoes WebSocket text and binary messages, selects the first subprotocol, closes on request", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.ports[1]}/ws`, ["first.v1", "second.v1"]);
    await once(ws, "open");
    expect(ws.protocol).toBe("first.v1");
    const messages: { data: string; isBinary: boolean }[] = [];
    ws.on("message", (data, isBinary) => messages.push({ data: data.toString(), isBinary }));
    ws.send("hello");
    ws.send(Buffer.from("bin"));
    await waitUntil(() => (messages.length === 2 ? true : undefined), "two echoes");
    expect(messages).toEqual([{ data: "hello", isBinary: false }, { data: "bin", isBinary: true }]);
    ws.send("close:4001:bye now");
    const [code, reason] = (await once(ws, "close")) as [number, Buffer];
    expect([code, reason.toString()]).toEqual([4001, "bye now"]);
  });

  it("answers every template's readiness path: /health, Jupyter's /api, and / (ComfyUI, Ollama)", async () => {
    for (const path of ["/health", "/api", "/"]) expect((await fetch(`${base}${path}`)).status, path).toBe(200);
    expect(await (await fetch(`${base}/api`)).json()).toEqual({ version: "dev" });
  });

  it("serves a web app at /: a page whose scripts and stylesheets, relative and root-absolute, all answer", async () => {
    const page = await fetch(`${base}/`);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references).toEqual(["app/relative.css", "/app/absolute.css", "app/relative.js", "/app/absolute.js", "app/main.js"]);
    for (const reference of references) {
      const file = await fetch(new URL(reference, `${base}/`));
      expect(file.status, reference).toBe(200);
      expect(file.headers.get("content-type"), reference).toBe(`${reference.endsWith(".css") ? "text/css" : "text/javascript"}; charset=utf-8`);
    }
  });

  it("the web app's own API answers JSON, and its cookie route says what it was sent and sets an HttpOnly cookie", async () => {
    expect(await (await fetch(`${base}/app/api?from=test`)).json()).toEqual({ ok: true, method: "GET", path: "/app/api" });
    const cookie = await fetch(`${base}/app/cookie`, { headers: { cookie: "dev_app=js; other=1" } });
    expect(await cookie.json()).toEqual({ cookie: "dev_app=js; other=1" });
    expect(cookie.headers.getSetCookie()).toEqual(["dev_app_server=1; Path=/; HttpOnly; SameSite=Lax"]);
  });

  it("answers 404 to anything else", async () => {
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
    expect((await fetch(`${base}/health`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${base}/`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${base}/app/nothing.js`)).status).toBe(404);
  });

  it("logs its start on both streams and every request as one line: stdout, or stderr when it failed", async () => {
    const logged = await startDevServerChild([8000], { DEV_READY_DELAY_MS: "5" });
    try {
      const port = logged.ports[0] ?? 0;
      await fetch(`http://127.0.0.1:${port}/echo/a?q=1`);
      await fetch(`http://127.0.0.1:${port}/missing`);
      const stdout = await waitUntil(() => (logged.output.stdout.includes("GET /echo/a 200\n") ? logged.output.stdout : undefined), "request line");
      const lines = stdout.trimEnd().split("\n");
      expect(lines.slice(0, 2)).toEqual(["dev container: loading Qwen/Qwen2.5-0.5B-Instruct, ready in 5 ms", `dev container ready on 8000->127.0.0.1:${port}`]);
      // Between them, the start-up wait's own /health polls.
      expect(new Set(lines.slice(2, -1))).toEqual(new Set(["GET /health 200"]));
      expect(lines.at(-1)).toBe("GET /echo/a 200");
      await waitUntil(() => (logged.output.stderr.includes("GET /missing 404") ? true : undefined), "failed request line");
      expect(logged.output.stderr).toBe("dev container: no GPU here, answers come from a stand-in model\nGET /missing 404\n");
    } finally {
      await logged.stop();
    }
  });
});

function rawRequest(port: number, method: string, path: string, headers: Record<string, string[]>, body: Buffer): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { ...headers, "content-length": String(body.byteLength) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.on("error", reject);
    req.end(body);
  });
}
