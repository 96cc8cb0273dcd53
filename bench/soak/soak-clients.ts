// The soak's clients: each a loop of one kind of work on the local stack (instance churn, reads,
// keys, proxied downloads and uploads, SSE, WebSocket), every operation timed and recorded.
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { OpFailure, type OpRecorder } from "./op-recorder.ts";

export interface SoakTarget {
  baseUrl: string;
  /** The dev account's key: the proxy, reads and keys clients use it. */
  key: string;
  /** The long-lived instance on dev-1 the proxy clients use, and its port. */
  proxyInstanceId: string;
  proxyPort: number;
}

export interface SoakClient {
  /** For the report: what it does. */
  description: string;
  /** Runs until `stopping()` is true, finishing the operation under way. */
  run(stopping: () => boolean): Promise<void>;
}

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

async function call(target: SoakTarget, key: string, method: string, path: string, signal: AbortSignal, body?: unknown): Promise<Answer> {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    signal,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    // Not JSON (a proxied body): the status says enough.
  }
  return { status: response.status, body: parsed };
}

function expectStatus(answer: Answer, status: number): Answer {
  if (answer.status !== status) {
    const message = typeof answer.body?.message === "string" ? answer.body.message : undefined;
    throw new OpFailure(`HTTP ${answer.status}${typeof answer.body?.error === "string" ? ` ${answer.body.error}` : ""}`, message);
  }
  return answer;
}

async function loop(stopping: () => boolean, pauseMs: number, work: () => Promise<void>): Promise<void> {
  while (!stopping()) {
    await work();
    await sleep(pauseMs);
  }
}

/** Launch, wait for running, stop, start, wait for running, destroy: over and over, one instance at a time. */
export function churnClient(target: SoakTarget, recorder: OpRecorder, account: { key: string }, gpuModel: string, machine: string): SoakClient {
  const api = (method: string, path: string, signal: AbortSignal, body?: unknown) => call(target, account.key, method, path, signal, body);
  const waitRunning = (id: string) => async (signal: AbortSignal) => {
    for (;;) {
      const instance = expectStatus(await api("GET", `/v1/instances/${id}`, signal), 200).body!;
      if (instance.status === "running") return;
      if (instance.status === "error") throw new OpFailure("instance error", `${id}: ${String(instance.status_message)}`);
      await sleep(250, undefined, { signal });
    }
  };
  const cycle = async () => {
    let id: string | null = null;
    const launched = await recorder.run("api.launch", machine, async (signal) => {
      id = expectStatus(await api("POST", "/v1/instances", signal, { gpu_model: gpuModel, gpu_count: 1, template: "pytorch" }), 201).body!.id as string;
    });
    if (!launched || id === null) return;
    const instance: string = id;
    const steps: [string, (signal: AbortSignal) => Promise<void>][] = [
      ["api.wait_running", waitRunning(instance)],
      ["api.stop", async (signal) => void expectStatus(await api("POST", `/v1/instances/${instance}/stop`, signal), 204)],
      ["api.start", async (signal) => void expectStatus(await api("POST", `/v1/instances/${instance}/start`, signal), 204)],
      ["api.wait_running", waitRunning(instance)],
    ];
    for (const [op, work] of steps) if (!(await recorder.run(op, machine, work))) break;
    await recorder.run("api.destroy", machine, async (signal) => void expectStatus(await api("DELETE", `/v1/instances/${instance}`, signal), 204));
  };
  return { description: `instance churn on ${gpuModel} (${machine})`, run: (stopping) => loop(stopping, 500, cycle) };
}

/** The control plane's reads, one after another. */
export function readsClient(target: SoakTarget, recorder: OpRecorder): SoakClient {
  const paths: [string, string][] = [
    ["api.me", "/v1/me"], ["api.instances", "/v1/instances"], ["api.instance", `/v1/instances/${target.proxyInstanceId}`],
    ["api.events", `/v1/instances/${target.proxyInstanceId}/events`], ["api.gpus", "/v1/gpus"], ["api.catalog", "/v1/catalog"],
    ["api.ledger", "/v1/billing/ledger?limit=50"],
  ];
  let next = 0;
  const read = async () => {
    const [op, path] = paths[next++ % paths.length]!;
    await recorder.run(op, null, async (signal) => void expectStatus(await call(target, target.key, "GET", path, signal), 200));
  };
  return { description: "control-plane reads", run: (stopping) => loop(stopping, 200, read) };
}

/** A key made, used, listed, revoked, and refused. */
export function keysClient(target: SoakTarget, recorder: OpRecorder): SoakClient {
  const cycle = async () => {
    let created: { id: string; key: string } | null = null;
    await recorder.run("api.key_create", null, async (signal) => {
      created = expectStatus(await call(target, target.key, "POST", "/v1/keys", signal, { name: "soak" }), 201).body as { id: string; key: string };
    });
    if (created === null) return;
    const { id, key } = created;
    await recorder.run("api.key_use", null, async (signal) => void expectStatus(await call(target, key, "GET", "/v1/me", signal), 200));
    await recorder.run("api.key_list", null, async (signal) => void expectStatus(await call(target, target.key, "GET", "/v1/keys", signal), 200));
    await recorder.run("api.key_revoke", null, async (signal) => void expectStatus(await call(target, target.key, "DELETE", `/v1/keys/${id}`, signal), 204));
    await recorder.run("api.key_refused", null, async (signal) => void expectStatus(await call(target, key, "GET", "/v1/me", signal), 401));
  };
  return { description: "API keys made, used, revoked", run: (stopping) => loop(stopping, 500, cycle) };
}

const proxyUrl = (target: SoakTarget, path: string) => `${target.baseUrl}/v1/instances/${target.proxyInstanceId}/proxy/${target.proxyPort}${path}`;

async function proxied(target: SoakTarget, path: string, signal: AbortSignal, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(proxyUrl(target, path), { ...init, signal, headers: { authorization: `Bearer ${target.key}`, ...init.headers } });
  if (response.status !== 200) {
    const text = await response.text().catch(() => "");
    let body: { error?: string; message?: string } | null = null;
    try {
      body = JSON.parse(text) as { error?: string; message?: string };
    } catch {
      // Not our error JSON (a platform's page): its first words say what it is.
    }
    throw new OpFailure(`HTTP ${response.status}${body?.error ? ` ${body.error}` : ""}`, body?.message ?? (text.slice(0, 120) || undefined));
  }
  return response;
}

const DOWNLOAD_BYTES = 8 * 1024 ** 2;

export function downloadClient(target: SoakTarget, recorder: OpRecorder): SoakClient {
  const download = () => recorder.run("proxy.download", "dev-1", async (signal) => {
    const response = await proxied(target, `/bytes?n=${DOWNLOAD_BYTES}`, signal);
    let bytes = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
    if (bytes !== DOWNLOAD_BYTES) throw new OpFailure("short body");
  });
  return { description: `proxied downloads of ${DOWNLOAD_BYTES / 1024 ** 2} MiB`, run: (stopping) => loop(stopping, 250, async () => void (await download())) };
}

const UPLOAD = new Uint8Array(8 * 1024 ** 2).map((_, i) => (i * 31) & 0xff);

export function uploadClient(target: SoakTarget, recorder: OpRecorder): SoakClient {
  const upload = () => recorder.run("proxy.upload", "dev-1", async (signal) => {
    const response = await proxied(target, "/echo/soak", signal, { method: "POST", body: UPLOAD, headers: { "content-type": "application/octet-stream" } });
    const echoed = (await response.json()) as { body_bytes: number };
    if (echoed.body_bytes !== UPLOAD.byteLength) throw new OpFailure("short upload");
  });
  return { description: `proxied uploads of ${UPLOAD.byteLength / 1024 ** 2} MiB`, run: (stopping) => loop(stopping, 250, async () => void (await upload())) };
}

const SSE_EVENTS = 50;

export function sseClient(target: SoakTarget, recorder: OpRecorder): SoakClient {
  const stream = () => recorder.run("proxy.sse", "dev-1", async (signal) => {
    const text = await (await proxied(target, `/sse?n=${SSE_EVENTS}&interval_ms=20`, signal)).text();
    if (text.split("\n").filter((line) => line.startsWith("data: ")).length !== SSE_EVENTS) throw new OpFailure("events missing");
  });
  return { description: `SSE streams of ${SSE_EVENTS} events`, run: (stopping) => loop(stopping, 250, async () => void (await stream())) };
}

const WS_MESSAGES = 100;

export function webSocketClient(target: SoakTarget, recorder: OpRecorder): SoakClient {
  const session = () => recorder.run("proxy.websocket", "dev-1", (signal) => new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(proxyUrl(target, "/ws").replace(/^http/, "ws"), { headers: { authorization: `Bearer ${target.key}` } });
    let echoed = 0;
    const fail = (error: Error) => {
      socket.terminate();
      reject(error);
    };
    signal.addEventListener("abort", () => fail(new OpFailure("timeout")), { once: true });
    socket.on("unexpected-response", (_request, response) => fail(new OpFailure(`HTTP ${response.statusCode}`)));
    socket.on("error", (error) => fail(new OpFailure(`network: ${(error as NodeJS.ErrnoException).code ?? error.message}`)));
    socket.on("open", () => {
      for (let i = 0; i < WS_MESSAGES; i++) socket.send(`message ${i}`);
    });
    socket.on("message", () => {
      if (++echoed === WS_MESSAGES) socket.close(1000);
    });
    socket.on("close", (code) => (echoed === WS_MESSAGES ? resolve() : reject(new OpFailure(`closed ${code} before every echo`))));
  }));
  return { description: `WebSocket sessions of ${WS_MESSAGES} echoed messages`, run: (stopping) => loop(stopping, 250, async () => void (await session())) };
}
