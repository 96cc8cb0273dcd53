// Logs and port readiness on the real local stack: real agents, local runtime, the dev container
// server loading its "model" for DEV_READY_DELAY_MS (2 s here) before its ports answer.
import { beforeAll, describe, expect, it } from "vitest";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { withContainerFolderBlocked } from "./support/host-faults.ts";

const stack = useE2eStack({}, { DEV_READY_DELAY_MS: "2000" });

const read = async (id: string) => (await stack.api<Instance>("GET", `/v1/instances/${id}`)).body;
const events = async (id: string) => (await stack.api<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`)).body.items.map((e) => e.message);
const auth = () => ({ authorization: `Bearer ${stack.key}` });
const logs = (id: string, query = "", headers: Record<string, string> = {}) => fetch(`${stack.baseUrl}/v1/instances/${id}/logs${query}`, { headers: { ...auth(), ...headers } });
/** The log's lines as text lines (`query` picks them), and the same without the readiness probe's own requests. */
const lines = async (id: string, query: string) => (await (await logs(id, query)).text()).split("\n").slice(0, -1);
const PROBE = "GET /health 200";
const withoutProbes = (all: string[]) => all.filter((line) => line !== PROBE);
const proxied = (instance: Instance, path: string) => fetch(stack.proxyUrl(instance, instance.ports[0]!.port, path), { headers: auth() });

async function launchUntilRunning(template: "vllm" | "pytorch"): Promise<Instance> {
  const body = template === "vllm"
    ? { gpu_model: "rtx4090", gpu_count: 1, template, model: "qwen2.5-0.5b-instruct" }
    : { gpu_model: "rtx4090", gpu_count: 1, template };
  const created = await stack.api<Instance>("POST", "/v1/instances", body);
  return poll(() => read(created.body.id), (i) => i.status === "running");
}

/** Lines of server-sent log events as they arrive, until the stream ends. */
class FollowedLog {
  readonly events: { t: string; stream: string; line: string }[] = [];
  readonly ended: Promise<void>;

  constructor(response: Response) {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    this.ended = (async () => {
      let pending = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        pending += value;
        const blocks = pending.split("\n\n");
        pending = blocks.pop() ?? "";
        for (const block of blocks) if (block.startsWith("data: ")) this.events.push(JSON.parse(block.slice(6)));
      }
    })();
  }
}

describe("port readiness", () => {
  it("a port is not ready while the model loads, then ready, with exactly one event saying after how long", async () => {
    const running = await launchUntilRunning("vllm");
    expect(running.ports).toEqual([expect.objectContaining({ port: 8000, api: "openai", ready: false, ready_at: null })]);
    const ready = await poll(() => read(running.id), (i) => i.ports[0]!.ready);
    expect(Date.parse(ready.ports[0]!.ready_at!)).toBeGreaterThan(Date.parse(ready.started_at!));
    expect(ready.status).toBe("running");
    // Probed on, and ready all along: still one event.
    expect((await proxied(ready, "/health")).status).toBe(200);
    const announced = (await events(running.id)).filter((m) => m.includes("ready after"));
    expect(announced).toEqual([expect.stringMatching(/^port 8000 \(openai\) ready after \d+ s$/)]);

    expect((await stack.api("POST", `/v1/instances/${running.id}/stop`)).status).toBe(204);
    expect((await read(running.id)).ports[0]).toMatchObject({ ready: false, ready_at: null });
    await stack.api("DELETE", `/v1/instances/${running.id}`);
  }, 60_000);

  it("Jupyter's readiness path answers too: a pytorch instance's port 8888 gets ready", async () => {
    const running = await launchUntilRunning("pytorch");
    const ready = await poll(() => read(running.id), (i) => i.ports[0]!.ready);
    expect(ready.ports[0]).toMatchObject({ port: 8888, api: "jupyter", path: "/api", ready: true });
    await stack.api("DELETE", `/v1/instances/${running.id}`);
  }, 60_000);
});

describe("logs", () => {
  let instance: Instance;

  beforeAll(async () => {
    const running = await launchUntilRunning("vllm");
    instance = await poll(() => read(running.id), (i) => i.ports[0]!.ready);
  }, 60_000);

  it("the last N lines as text, stdout and stderr together; N bounded to 1..10,000", async () => {
    for (const path of ["/echo/one", "/echo/two", "/nowhere"]) await proxied(instance, path);
    // The agent's readiness probe adds its own line now and then: left out where exact lines matter.
    const recent = await poll(async () => withoutProbes(await lines(instance.id, "?tail=10")), (got) => got.at(-1) === "GET /nowhere 404");
    expect(recent.slice(-3)).toEqual(["GET /echo/one 200", "GET /echo/two 200", "GET /nowhere 404"]);
    expect(await lines(instance.id, "?tail=3")).toHaveLength(3);
    const response = await logs(instance.id, "?tail=1");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(["GET /nowhere 404\n", `${PROBE}\n`]).toContain(await response.text());
    const all = await lines(instance.id, "?tail=10000");
    expect(all[0]).toMatch(/^dev container: (loading|no GPU)/);
    expect(all).toContain("dev container: no GPU here, answers come from a stand-in model");
    // More than the default of 200 lines: the default answer is exactly 200.
    for (let i = 0; i < 25; i++) await Promise.all(Array.from({ length: 9 }, (_, j) => proxied(instance, `/echo/${i}-${j}`)));
    expect(await lines(instance.id, "")).toHaveLength(200);
    // The container writes each request's line as it answers; the last may land a moment after.
    await poll(async () => (await lines(instance.id, "?tail=10000")).length, (count) => count > 225);
    for (const tail of ["0", "10001", "x"]) {
      const refused = await logs(instance.id, `?tail=${tail}`);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: "invalid", message: "tail: must be an integer from 1 to 10000" });
    }
  });

  it("a follow gets the tail, then lines written after it began, each with its time and stream, and ends when the container stops", async () => {
    const response = await logs(instance.id, "?tail=1&follow=true");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const followed = new FollowedLog(response);
    await poll(async () => followed.events.length, (n) => n === 1);
    const startedAt = Date.now();
    await proxied(instance, "/echo/after");
    await proxied(instance, "/missing-after");
    const later = await poll(async () => followed.events.slice(1).filter((e) => e.line !== PROBE), (e) => e.length === 2);
    expect(later.map(({ stream, line }) => ({ stream, line }))).toEqual([
      { stream: "stdout", line: "GET /echo/after 200" },
      { stream: "stderr", line: "GET /missing-after 404" },
    ]);
    for (const { t } of later) expect(Date.parse(t)).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect((await stack.api("POST", `/v1/instances/${instance.id}/stop`)).status).toBe(204);
    await followed.ended;
  }, 30_000);

  it("a stopped instance's logs are still there, as text or (Accept: text/event-stream) as events", async () => {
    await poll(() => events(instance.id), (log) => log.some((m) => m.startsWith("Container stopped")));
    expect(withoutProbes(await lines(instance.id, "?tail=5")).at(-1)).toBe("GET /missing-after 404");
    const asEvents = await (await logs(instance.id, "?tail=5", { accept: "text/event-stream" })).text();
    const parsed = asEvents.split("\n\n").filter(Boolean).map((event) => JSON.parse(event.replace(/^data: /, "")) as { line: string });
    expect(parsed).toHaveLength(5);
    expect(parsed.filter((e) => e.line !== PROBE).at(-1)).toEqual({ t: expect.any(String), stream: "stderr", line: "GET /missing-after 404" });
  });

  it("is 409 not_running when the host has no logs for the instance (its container was never made)", async () => {
    await withContainerFolderBlocked(stack, "dev-1", async () => {
      const created = await stack.api<Instance>("POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
      await poll(() => read(created.body.id), (i) => i.status === "error");
      const response = await logs(created.body.id);
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ error: "not_running", message: `the host has no logs for instance ${created.body.id}` });
      await stack.api("DELETE", `/v1/instances/${created.body.id}`);
    });
  });

  it("is 502 upstream_unavailable while the host is offline", async () => {
    await stack.stopAgent("dev-1");
    await stack.waitForMachines({ "dev-1": false });
    const response = await logs(instance.id);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: "upstream_unavailable", message: `the host of instance ${instance.id} is offline` });
    stack.startAgent("dev-1");
    await stack.waitForMachines({ "dev-1": true });
  });
});
