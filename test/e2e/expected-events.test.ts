// Expected events end quietly on the real stack: a host agent dying under open streams, a client
// leaving mid-stream, an upstream closing its WebSocket. wrangler's own output must show no uncaught
// exception for any of them, and the ones that cut a stream short show as one JSON line each, naming
// the request, account, instance and machine.
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

// At wrangler's "log" level its output holds the Worker's info lines (access lines included).
const stack = useE2eStack({}, {}, { logLevel: "log" });

const auth = () => ({ authorization: `Bearer ${stack.key}` });

/** wrangler's output from now on (the stack keeps only its tail), and the Worker's JSON log lines in it. */
function captureWorkerOutput(): { text: () => string; logLines: () => Record<string, unknown>[]; stop: () => void } {
  let text = "";
  const collect = (chunk: Buffer) => void (text += chunk.toString());
  const { stdout, stderr } = stack.worker.process;
  stdout!.on("data", collect);
  stderr!.on("data", collect);
  return {
    text: () => text,
    logLines: () => {
      const lines: Record<string, unknown>[] = [];
      for (const line of text.split("\n")) {
        const start = line.indexOf('{"level":');
        const end = line.lastIndexOf("}");
        if (start >= 0 && end > start) lines.push(JSON.parse(line.slice(start, end + 1)) as Record<string, unknown>);
      }
      return lines;
    },
    stop: () => {
      stdout!.off("data", collect);
      stderr!.off("data", collect);
    },
  };
}

async function openWebSocket(instance: Instance, port: number): Promise<WebSocket> {
  const socket = new WebSocket(stack.proxyUrl(instance, port, "/ws").replace(/^http/, "ws"), { headers: auth() });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Reads a body to its end; "ended" or "aborted". */
async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  try {
    for (;;) if ((await reader.read()).done) return "ended";
  } catch {
    return "aborted";
  }
}

describe("expected events end quietly", () => {
  it("an agent dying under an SSE response, a log stream and a WebSocket: bodies end, the socket closes 1011, one warning each, nothing uncaught", async () => {
    const target = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    const ids = { account_id: stack.setup.account.id, instance_id: target.id, machine_id: stack.setup.machines["dev-2"]!.id };
    const output = captureWorkerOutput();

    const sse = await fetch(stack.proxyUrl(target, 8888, "/sse?n=100&interval_ms=100"), { headers: auth() });
    const sseReader = sse.body!.getReader();
    await sseReader.read();
    const logs = await fetch(`${stack.baseUrl}/v1/instances/${target.id}/logs?follow=true&tail=1`, { headers: auth() });
    expect(logs.status).toBe(200);
    const logsReader = logs.body!.getReader();
    await logsReader.read();
    const socket = await openWebSocket(target, 8888);
    const closed = new Promise<[number, string]>((resolve) => socket.once("close", (code, reason) => resolve([code, reason.toString()])));

    await stack.stopAgent("dev-2");
    expect(await readToEnd(sseReader)).toBe("ended");
    expect(await readToEnd(logsReader)).toBe("ended");
    expect(await closed).toEqual([1011, "upstream failed"]);

    const cutShort = await poll(
      async () => output.logLines().filter((line) => String(line.msg).endsWith("the host disconnected")),
      (lines) => lines.length === 3,
    );
    expect(cutShort).toEqual(expect.arrayContaining([
      {
        level: "warn", msg: "proxied response cut short: the host disconnected", stream: "http",
        request_id: sse.headers.get("x-request-id"), ...ids, port: 8888, stream_id: expect.any(Number),
      },
      {
        level: "warn", msg: "proxied response cut short: the host disconnected", stream: "logs",
        request_id: logs.headers.get("x-request-id"), ...ids, stream_id: expect.any(Number),
      },
      {
        level: "warn", msg: "proxied WebSocket closed: the host disconnected", stream: "websocket",
        request_id: expect.stringMatching(/^req_/), ...ids, port: 8888, stream_id: expect.any(Number),
      },
    ]));
    stack.startAgent("dev-2");
    await stack.waitForMachines({ "dev-2": true });
    await stack.api("DELETE", `/v1/instances/${target.id}`);
    output.stop();
    expect(output.text()).not.toMatch(/Uncaught|NOSENTRY/);
  }, 60_000);

  it("a client leaving mid-stream and a client dropping its WebSocket: one info line each, nothing uncaught; an upstream closing its WebSocket: nothing at all", async () => {
    const instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    const ids = { account_id: stack.setup.account.id, instance_id: instance.id, machine_id: stack.setup.machines["dev-1"]!.id, port: 8888 };
    const output = captureWorkerOutput();

    const leaving = new AbortController();
    const sse = await fetch(stack.proxyUrl(instance, 8888, "/sse?n=100&interval_ms=20"), { headers: auth(), signal: leaving.signal });
    await sse.body!.getReader().read();
    leaving.abort();

    const dropped = await openWebSocket(instance, 8888);
    dropped.terminate();

    const upstreamCloses = await openWebSocket(instance, 8888);
    const closed = new Promise<number>((resolve) => upstreamCloses.once("close", (code) => resolve(code)));
    upstreamCloses.send("close:4000:done");
    expect(await closed).toBe(4000);

    const left = await poll(
      async () => output.logLines().filter((line) => String(line.msg).startsWith("client left")),
      (lines) => lines.length === 2,
    );
    expect(left).toEqual(expect.arrayContaining([
      { level: "info", msg: "client left before the response ended", stream: "http", request_id: sse.headers.get("x-request-id"), ...ids, stream_id: expect.any(Number) },
      { level: "info", msg: "client left: its WebSocket dropped without a close", stream: "websocket", request_id: expect.stringMatching(/^req_/), ...ids, stream_id: expect.any(Number) },
    ]));
    await stack.api("DELETE", `/v1/instances/${instance.id}`);
    output.stop();
    expect(output.text()).not.toMatch(/Uncaught|NOSENTRY/);
    expect(output.logLines().filter((line) => line.level !== "info")).toEqual([]);
  }, 60_000);
});
