// The proxy on the real stack: worker in workerd (wrangler dev), real host agent, dev container server.
import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { BLOCK_BYTES, payloadBlock, payloadSha256 } from "../../host-agent/dev/container/seeded-bytes.ts";
import WebSocket from "ws";
import { readEventArrivals } from "../support/agent/event-arrivals.ts";
import { peakGrowth } from "./support/rss.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { MAX_WS_MESSAGE_BYTES } from "../../protocol/mux/frames.ts";

const stack = useE2eStack();
let llm: Instance;

beforeAll(async () => {
  llm = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" });
}, 120_000);

const auth = () => ({ authorization: `Bearer ${stack.key}` });

function rawRequest(url: string, method: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(new URL(url), { method, headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("OpenAI clients through the proxy", () => {
  it("the openai SDK lists models, streams a chat completion and creates embeddings", async () => {
    const client = new OpenAI({ baseURL: stack.proxyUrl(llm, 8000, "/v1"), apiKey: stack.key });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["Qwen/Qwen2.5-0.5B-Instruct"]);
    const stream = await client.chat.completions.create({
      model: "Qwen/Qwen2.5-0.5B-Instruct", messages: [{ role: "user", content: "Say hello" }], stream: true, max_tokens: 5,
    });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? "");
    expect(pieces.join("").trim().split(/\s+/).length).toBe(5);
    const embeddings = await client.embeddings.create({ model: "Qwen/Qwen2.5-0.5B-Instruct", input: ["a", "b"] });
    expect(embeddings.data.length).toBe(2);
    expect(embeddings.data[0]!.embedding.length).toBeGreaterThan(0);
  });

  it("the instance token authenticates the proxy of its own instance only", async () => {
    const client = new OpenAI({ baseURL: stack.proxyUrl(llm, 8000, "/v1"), apiKey: llm.token });
    expect((await client.models.list()).data.length).toBe(1);
    const other = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    const refused = await fetch(stack.proxyUrl(other, 8888, "/health"), { headers: { authorization: `Bearer ${llm.token}` } });
    expect(refused.status).toBe(401);
    expect((await stack.api("GET", "/v1/me", undefined, llm.token)).status).toBe(401);
    await stack.api("DELETE", `/v1/instances/${other.id}`);
  });
});

describe("HTTP pass-through", () => {
  it("path, query and percent-encoding pass unchanged; header rules hold", async () => {
    // node:http, because fetch refuses to send a Connection header naming another header.
    const { status, headers, body } = await rawRequest(stack.proxyUrl(llm, 8000, "/echo/a%20b/%2F/c?x=1&y=%20z&x=2"), "POST", {
      ...auth(), cookie: "session=secret", "x-upstream-authorization": "Bearer upstream-key", "x-custom": "kept",
      "content-type": "text/plain", "keep-alive": "timeout=5", te: "trailers",
    }, "hello");
    expect(status).toBe(200);
    expect(headers["x-request-id"]).toMatch(/^req_/);
    const echo = JSON.parse(body) as { method: string; path: string; query: string; headers: Record<string, string>; body_bytes: number; body_sha256: string };
    expect(echo.method).toBe("POST");
    expect(echo.path).toBe("/echo/a%20b/%2F/c");
    expect(echo.query).toBe("x=1&y=%20z&x=2");
    expect(echo.body_bytes).toBe(5);
    expect(echo.body_sha256).toBe(createHash("sha256").update("hello").digest("hex"));
    expect(echo.headers.authorization).toBe("Bearer upstream-key");
    expect(echo.headers.cookie).toBeUndefined();
    expect(echo.headers["x-upstream-authorization"]).toBeUndefined();
    expect(echo.headers["x-custom"]).toBe("kept");
    // Hop-by-hop headers stay on their hop. (workerd consumes Connection itself, so headers that
    // Connection names cannot be told apart here; the fixed RFC 9110 list is what can be enforced.)
    expect(echo.headers["keep-alive"]).toBeUndefined();
    expect(echo.headers.te).toBeUndefined();
    expect(echo.headers["x-forwarded-for"]).toEqual(expect.any(String));
    expect(echo.headers["x-forwarded-proto"]).toBe("http");
    expect(echo.headers["x-forwarded-host"]).toBe(new URL(stack.baseUrl).host);
    expect(echo.headers["x-forwarded-prefix"]).toBe(`/v1/instances/${llm.id}/proxy/8000`);
  });

  it("any method passes, and the caller's key never reaches the upstream", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      const response = await fetch(stack.proxyUrl(llm, 8000, "/echo/m"), { method, headers: auth() });
      const echo = (await response.json()) as { method: string; headers: Record<string, string> };
      expect(echo.method).toBe(method);
      expect(echo.headers.authorization).toBeUndefined();
    }
  });

  it("SSE events arrive one by one, the first long before the last is sent", async () => {
    const response = await fetch(stack.proxyUrl(llm, 8000, "/sse?n=5&interval_ms=300"), { headers: auth() });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const arrivals = (await readEventArrivals(response)).events.filter((e) => e.event.startsWith("data:")).map((e) => e.atMs);
    expect(arrivals.length).toBe(5);
    // The upstream sends the last event 1.2 s after the first: streaming shows as a spread.
    expect(arrivals[4]! - arrivals[0]!).toBeGreaterThan(900);
  });

  it("downloads stream with the exact bytes: the digest of what arrived is the one the server reports", async () => {
    const response = await fetch(stack.proxyUrl(llm, 8000, "/bytes?n=10000000"), { headers: auth() });
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(10_000_000);
    const reported = (await (await fetch(stack.proxyUrl(llm, 8000, "/bytes/sha256?n=10000000"), { headers: auth() })).json()) as { sha256: string };
    expect(createHash("sha256").update(body).digest("hex")).toBe(reported.sha256);
  });

  it("replies read to their end never add up in the host's budget: 120 of 300 kB, 36 MB together, all arrive", async () => {
    // Each leaves less than a credit batch (512 KiB) unacknowledged until the MachineDO, done with the
    // stream, returns the rest: were that lost, they would fill the instance's 24 MiB and hold its next replies.
    for (let n = 0; n < 120; n++) {
      const response = await fetch(stack.proxyUrl(llm, 8000, "/bytes?n=300000"), { headers: auth(), signal: AbortSignal.timeout(10_000) });
      expect((await response.arrayBuffer()).byteLength).toBe(300_000);
    }
  });

  it("a response with a declared length keeps its Content-Length (download progress works)", async () => {
    // Identity encoding: with gzip accepted the runtime may compress, which drops the length.
    const response = await fetch(stack.proxyUrl(llm, 8000, "/echo/sized"), { headers: { ...auth(), "accept-encoding": "identity" } });
    const text = await response.text();
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
  });

  it("an instance's answer is sandboxed and sets no cookie on the API's origin", async () => {
    // The upstream sets two (the apps origin's test sees them arrive there, as two headers).
    const response = await fetch(stack.proxyUrl(llm, 8000, "/echo/cookies?set_cookies=2"), { headers: auth() });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("large bodies and flow control", () => {
  it("a 512 MB streamed upload arrives intact while workerd and the agent stay bounded", async () => {
    // The seeded payload: no two blocks alike, so a piece lost, doubled or reordered changes the digest.
    const size = 512 * 1024 * 1024;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= size) return controller.close();
        controller.enqueue(payloadBlock(sent / BLOCK_BYTES));
        sent += BLOCK_BYTES;
      },
    });
    const { result, growthBytes } = await peakGrowth(
      { workerd: stack.worker.process.pid!, agent: stack.agents.get("dev-1")!.process.pid! },
      async () => {
        const response = await fetch(stack.proxyUrl(llm, 8000, "/echo/upload"), {
          method: "POST", headers: { ...auth(), "content-type": "application/octet-stream" }, body, duplex: "half",
        } as RequestInit);
        return (await response.json()) as { body_bytes: number; body_sha256: string };
      },
    );
    expect(result.body_bytes).toBe(size);
    expect(result.body_sha256).toBe(payloadSha256(size));
    console.log(`512 MB upload RSS growth: ${JSON.stringify(Object.fromEntries(Object.entries(growthBytes).map(([k, v]) => [k, `${(v / 1048576).toFixed(1)} MB`])))}`);
    // Buffering the body anywhere would grow one of them by ~512 MB.
    expect(growthBytes.workerd!).toBeLessThan(256 * 1024 * 1024);
    expect(growthBytes.agent!).toBeLessThan(256 * 1024 * 1024);
  }, 300_000);

  it("a body over 512 MB announced by Content-Length is refused with 413 before it is read", async () => {
    const { status, body } = await announceOversizedBody(auth());
    expect(status).toBe(413);
    expect(JSON.parse(body)).toEqual({ error: "payload_too_large", message: expect.stringContaining("512 MB") });
  });

  it("a slow reader does not make the agent or workerd hold the download", async () => {
    const response = await fetch(stack.proxyUrl(llm, 8000, "/bytes?n=300000000"), { headers: auth() });
    const reader = response.body!.getReader();
    const { growthBytes } = await peakGrowth(
      { workerd: stack.worker.process.pid!, agent: stack.agents.get("dev-1")!.process.pid! },
      async () => {
        let read = 0;
        while (read < 32 * 1024 * 1024) {
          const { value } = await reader.read();
          read += value!.byteLength;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await new Promise((resolve) => setTimeout(resolve, 1500));
      },
    );
    await reader.cancel();
    console.log(`slow reader RSS growth: ${JSON.stringify(growthBytes)}`);
    expect(growthBytes.workerd!).toBeLessThan(128 * 1024 * 1024);
    expect(growthBytes.agent!).toBeLessThan(128 * 1024 * 1024);
  }, 120_000);
});

describe("uploads to a host that stops taking them", () => {
  it("wait in the host's upload budget, not in workerd: 24 of 8 MiB sent while it is frozen, each counted whole once it is back", async () => {
    const agent = stack.agents.get("dev-1")!;
    const size = 8 * 1024 * 1024;
    const uploads: Promise<string>[] = [];
    const { growthBytes } = await peakGrowth({ workerd: stack.worker.process.pid! }, async () => {
      // Frozen, the agent reads nothing from its socket: what the MachineDO sends it waits on the way.
      process.kill(-agent.process.pid!, "SIGSTOP");
      try {
        for (let i = 0; i < 24; i++) {
          uploads.push(fetch(stack.proxyUrl(llm, 8000, "/fast/sink"), { method: "POST", headers: auth(), body: new Uint8Array(size) }).then((r) => r.text()));
        }
        await new Promise((resolve) => setTimeout(resolve, 3000));
      } finally {
        process.kill(-agent.process.pid!, "SIGCONT");
      }
    });
    expect(await Promise.all(uploads)).toEqual(Array(24).fill(String(size)));
    console.log(`24 uploads to a frozen host, workerd RSS growth: ${(growthBytes.workerd! / 1048576).toFixed(1)} MB`);
    // Each stream's window alone let 96 MiB go to the agent's socket (wrangler's workerd grew 168–176 MB);
    // the budget lets one instance's 12 MiB go (58–59 MB, the rest the uploads' own buffers on the way).
    expect(growthBytes.workerd!).toBeLessThan(100 * 1024 * 1024);
  }, 60_000);
});

describe("a host that goes away mid-stream", () => {
  const readToEnd = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
    try {
      for (;;) if ((await reader.read()).done) return "ended";
    } catch {
      return "broke off";
    }
  };

  it("breaks a download off, so the client never takes a cut body for a whole one; an event stream just ends", async () => {
    const target = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    const download = (await fetch(stack.proxyUrl(target, 8888, "/bytes?n=1000000000&chunked=1"), { headers: auth() })).body!.getReader();
    const events = (await fetch(stack.proxyUrl(target, 8888, "/sse?n=1000&interval_ms=50"), { headers: auth() })).body!.getReader();
    await download.read();
    await events.read();
    await stack.stopAgent("dev-2");
    expect(await readToEnd(download)).toBe("broke off");
    expect(await readToEnd(events)).toBe("ended");
    stack.startAgent("dev-2");
    await stack.waitForMachines({ "dev-2": true });
    await stack.api("DELETE", `/v1/instances/${target.id}`);
  }, 60_000);
});

describe("WebSockets through the proxy", () => {
  const wsUrl = (path: string) => stack.proxyUrl(llm, 8000, path).replace(/^http/, "ws");

  it("text and binary messages echo, subprotocol is negotiated, close codes pass both ways", async () => {
    const socket = new WebSocket(wsUrl("/ws"), ["chat.v2", "chat.v1"], { headers: auth() });
    await new Promise((resolve, reject) => { socket.once("open", resolve); socket.once("error", reject); });
    expect(socket.protocol).toBe("chat.v2");
    const messages: { data: Buffer; binary: boolean }[] = [];
    socket.on("message", (data: Buffer, binary: boolean) => messages.push({ data, binary }));
    socket.send("hello");
    socket.send(Buffer.from([1, 2, 3, 255]));
    await poll(async () => messages.length, (n) => n === 2);
    expect(messages[0]).toEqual({ data: Buffer.from("hello"), binary: false });
    expect(messages[1]).toEqual({ data: Buffer.from([1, 2, 3, 255]), binary: true });
    const closed = new Promise<[number, string]>((resolve) => socket.once("close", (code, reason) => resolve([code, reason.toString()])));
    socket.send("close:4321:bye from upstream");
    expect(await closed).toEqual([4321, "bye from upstream"]);
  });

  it("an upstream that speaks first: its first messages reach the client, none lost while the WebSocket is joined", async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const socket = new WebSocket(wsUrl(`/ws?greet=first-${attempt}`), { headers: auth() });
      const first = new Promise<string>((resolve, reject) => {
        socket.once("message", (data: Buffer) => resolve(data.toString()));
        socket.once("error", reject);
        setTimeout(() => reject(new Error(`attempt ${attempt}: the greeting never arrived`)), 5_000);
      });
      expect(await first).toBe(`first-${attempt}`);
      socket.close(1000);
    }
  });

  it("a client close code reaches the upstream side cleanly", async () => {
    const socket = new WebSocket(wsUrl("/ws"), { headers: auth() });
    await new Promise((resolve, reject) => { socket.once("open", resolve); socket.once("error", reject); });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.close(4000, "client done");
    expect(await closed).toBe(4000);
  });

  it("messages up to MAX_WS_MESSAGE_BYTES (1 MiB − 5) cross both ways whole; a bigger one closes the socket with 1009 at both ends", async () => {
    const open = async () => {
      const socket = new WebSocket(wsUrl("/ws"), { headers: auth() });
      await new Promise((resolve, reject) => { socket.once("open", resolve); socket.once("error", reject); });
      return socket;
    };
    const socket = await open();
    const big = randomBytes(MAX_WS_MESSAGE_BYTES);
    const echoed = new Promise<Buffer>((resolve) => socket.once("message", (data: Buffer) => resolve(data)));
    socket.send(big);
    expect((await echoed).equals(big)).toBe(true);
    const closed = new Promise<[number, string]>((resolve) => socket.once("close", (code, reason) => resolve([code, reason.toString()])));
    socket.send(Buffer.alloc(MAX_WS_MESSAGE_BYTES + 1));
    expect(await closed).toEqual([1009, "message too big for the proxy"]);
    const next = await open();
    const pong = new Promise<string>((resolve) => next.once("message", (data: Buffer) => resolve(data.toString())));
    next.send("still here");
    expect(await pong).toBe("still here");
    next.close();
  });

  it("a WebSocket to a port where nothing listens is refused with 502", async () => {
    const socket = new WebSocket(stack.proxyUrl(llm, 9999, "/ws").replace(/^http/, "ws"), { headers: auth() });
    const status = await new Promise<number>((resolve) => socket.once("unexpected-response", (_req, res) => resolve(res.statusCode!)));
    expect(status).toBe(502);
  });
});

describe("admission", () => {
  it("a key revoked while requests stream is refused on the very next request; none after the 204 is served", async () => {
    const created = await stack.api<{ id: string; key: string }>("POST", "/v1/keys", { name: "revoked mid-stream" });
    const outcomes: { afterRevoke: boolean; status: number }[] = [];
    let revoked = false;
    const loop = async () => {
      let afterwards = 0;
      while (afterwards < 10) {
        const afterRevoke = revoked;
        const response = await fetch(stack.proxyUrl(llm, 8000, "/health"), { headers: { authorization: `Bearer ${created.body.key}` } });
        await response.arrayBuffer();
        outcomes.push({ afterRevoke, status: response.status });
        if (afterRevoke) afterwards++;
      }
    };
    const loops = [loop(), loop(), loop()];
    await poll(async () => outcomes.filter((o) => o.status === 200).length, (served) => served >= 6);
    expect((await stack.api("DELETE", `/v1/keys/${created.body.id}`)).status).toBe(204);
    revoked = true;
    await Promise.all(loops);
    const after = outcomes.filter((o) => o.afterRevoke);
    expect(after.length).toBe(30);
    expect(after.every((o) => o.status === 401), JSON.stringify(after)).toBe(true);
  });

  it("a wrong key with a body over 512 MB announced is 401 (admission first), answered before the body is sent", async () => {
    const wrongKey = stack.key.slice(0, -4) + (stack.key.endsWith("aaaa") ? "bbbb" : "aaaa");
    const { status, body } = await announceOversizedBody({ authorization: `Bearer ${wrongKey}` });
    expect(status).toBe(401);
    expect(JSON.parse(body)).toEqual({ error: "unauthorized", message: expect.any(String) });
  });

  it("an instance destroyed is refused on the very next request, its token too", async () => {
    const target = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    expect((await fetch(stack.proxyUrl(target, 8888, "/health"), { headers: { authorization: `Bearer ${target.token}` } })).status).toBe(200);
    expect((await stack.api("DELETE", `/v1/instances/${target.id}`)).status).toBe(204);
    for (const credential of [stack.key, target.token]) {
      const response = await fetch(stack.proxyUrl(target, 8888, "/health"), { headers: { authorization: `Bearer ${credential}` } });
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: string }).error).toBe("not_running");
    }
  });
});

describe("proxy errors", () => {
  it("nothing listening on the port is 502 upstream_unavailable", async () => {
    const response = await fetch(stack.proxyUrl(llm, 9999, "/"), { headers: auth() });
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: "upstream_unavailable", message: expect.any(String) });
  });

  it.each([["0"], ["65536"], ["http"], ["-1"]])("port %s is 400 invalid", async (port) => {
    const response = await fetch(`${stack.baseUrl}/v1/instances/${llm.id}/proxy/${port}/x`, { headers: auth() });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid", message: expect.stringContaining("port") });
  });

  it("unknown instance is 404; no key is 401", async () => {
    const unknown = await fetch(`${stack.baseUrl}/v1/instances/i-aaaaaaaaaaaaaaaa/proxy/8000/`, { headers: auth() });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe("not_found");
    expect((await fetch(stack.proxyUrl(llm, 8000, "/health"))).status).toBe(401);
  });

  it("an instance that is not running is 409 not_running", async () => {
    // Stopped, not just launched: the host may report a new container running at any moment.
    const created = await stack.api<Instance>("POST", "/v1/instances", { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    expect((await stack.api("POST", `/v1/instances/${created.body.id}/stop`)).status).toBe(204);
    const response = await fetch(stack.proxyUrl(created.body, 8888, "/"), { headers: auth() });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toBe("not_running");
    await stack.api("DELETE", `/v1/instances/${created.body.id}`);
  });
});

/** Announces a body of 512 MB + 1 to the proxy, sends its first KiB only, and reads the answer. */
function announceOversizedBody(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(stack.proxyUrl(llm, 8000, "/echo/too-big"));
    const req = httpRequest(url, { method: "POST", headers: { ...headers, "content-length": String(512 * 1024 * 1024 + 1) } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => {
        resolve({ status: res.statusCode!, body: text });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.write(Buffer.alloc(1024));
  });
}
