// Webhooks on the real stack, received by a real HTTP server that verifies every delivery with the
// `standardwebhooks` package: a launch's status change and ready port, funds running out, a
// receiver failing or hanging and then answering, and the whole stack reset mid-delivery.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChromium, launchBrowser } from "./support/browser.ts";
import { nav, signIn, untilText } from "./support/dashboard.ts";
import { freePort, poll, startE2eStack, type E2eStack } from "./support/e2e-stack.ts";
import { cliEnv, runGpu } from "./support/gpu-cli.ts";
import { testTempDir } from "../support/agent/temp-dir.ts";

interface Received {
  path: string;
  id: string;
  type: string;
  data: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (ms). */
  at: number;
}

/** What the receiver does with the nth request (from 0) to a path: answer a status, or never answer. */
type Answer = number | "hang";

class Receiver {
  readonly received: Received[] = [];
  readonly answers = new Map<string, Answer[]>();
  readonly secrets = new Map<string, string>();
  private readonly hanging: (() => void)[] = [];
  server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => void (body += chunk.toString()));
      request.on("end", () => {
        const path = request.url ?? "/";
        // Every delivery must verify with the endpoint's secret, exactly as a customer checks it.
        const payload = new Webhook(this.secrets.get(path)!).verify(body, request.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
        const count = this.received.filter((r) => r.path === path).length;
        this.received.push({ path, id: request.headers["webhook-id"] as string, type: payload.type, data: payload.data, headers: request.headers, body, at: Date.now() });
        const answer = this.answers.get(path)?.[count] ?? 200;
        if (answer === "hang") return void this.hanging.push(() => response.destroy());
        response.writeHead(answer).end(answer === 200 ? "ok" : "receiver failed on purpose");
      });
    });
    await new Promise<void>((resolve) => this.server.listen(this.port, "127.0.0.1", resolve));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const end of this.hanging) end();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const receiver = new Receiver();
let stack: E2eStack;
let resumed: E2eStack | undefined;

beforeAll(async () => {
  await receiver.start();
  stack = await startE2eStack();
}, 120_000);

afterAll(async () => {
  await resumed?.stop();
  await stack?.stop();
  await receiver.stop();
});

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.ok, `${method} ${path}`).toBe(true);
  return (await response.json()) as Record<string, unknown>;
}

/** A new account with `balance` and a key, and an endpoint of it at `path` for `events`. */
async function accountWithEndpoint(path: string, balance: number, events?: string[]): Promise<{ id: string; key: string; webhookId: string }> {
  const account = await admin("POST", "/accounts", { balance_micros: balance });
  const key = (await admin("POST", `/accounts/${account.id as string}/keys`, { name: "hooks" })).key as string;
  const created = await stack.api<{ id: string; secret: string }>("POST", "/v1/webhooks", { url: receiver.url(path), ...(events ? { events } : {}) }, key);
  expect(created.status).toBe(201);
  receiver.secrets.set(path, created.body.secret);
  return { id: account.id as string, key, webhookId: created.body.id };
}

describe("webhooks on the real stack", () => {
  it("a launch sends instance.status_changed creating→running and instance.port_ready, each verified", async () => {
    const { key } = await accountWithEndpoint("/launch", 50_000_000);
    const created = await stack.api<{ id: string; label: string }>("POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" }, key);
    expect(created.status).toBe(201);
    const ready = await poll(async () => receiver.at("/launch"), (r) => r.some((e) => e.type === "instance.port_ready"));
    const running = ready.find((e) => e.type === "instance.status_changed" && e.data.to === "running");
    expect(running?.data).toEqual({ instance_id: created.body.id, label: created.body.label, from: "creating", to: "running", status_message: "" });
    expect(ready.find((e) => e.type === "instance.port_ready")!.data).toEqual({ instance_id: created.body.id, port: 8888, api: expect.any(String), after_s: expect.any(Number) });
    for (const event of ready) {
      expect(event.headers["webhook-timestamp"]).toMatch(/^\d+$/);
      expect(event.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(JSON.parse(event.body)).toEqual({ type: event.type, timestamp: expect.stringMatching(/Z$/), data: event.data });
    }
  }, 60_000);

  it("funds running out send instance.stopped_for_funds and balance.low once", async () => {
    const account = await accountWithEndpoint("/funds", 20_000_000, ["instance.stopped_for_funds", "balance.low"]);
    const created = await stack.api<{ id: string }>("POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" }, account.key);
    await poll(() => stack.api<{ status: string }>("GET", `/v1/instances/${created.body.id}`, undefined, account.key), (r) => r.body.status === "running");
    // Below the default $5 threshold, then used up, then further down: balance.low once, for the crossing.
    await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: -16_000_000, note: "test" });
    await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: -5_000_000, note: "test" });
    await stack.api("GET", "/v1/me", undefined, account.key);
    const events = await poll(async () => receiver.at("/funds"), (r) => r.some((e) => e.type === "instance.stopped_for_funds"));
    expect(events.find((e) => e.type === "instance.stopped_for_funds")!.data).toEqual({ instance_id: created.body.id });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const low = receiver.at("/funds").filter((e) => e.type === "balance.low");
    expect(low).toHaveLength(1);
    expect(low[0]!.data).toEqual({ balance_micros: expect.any(Number), threshold_micros: 5_000_000 });
    expect(low[0]!.data.balance_micros as number).toBeLessThan(5_000_000);
    expect(receiver.at("/funds").every((e) => e.type !== "instance.status_changed")).toBe(true);
  }, 60_000);

  it("a receiver answering 500 then 200 gets the same webhook-id again about 5 s later; the log shows both", async () => {
    receiver.answers.set("/flaky", [500, 200]);
    const { key, webhookId } = await accountWithEndpoint("/flaky", 10_000_000);
    expect((await stack.api("POST", `/v1/webhooks/${webhookId}/test`, undefined, key)).status).toBe(202);
    const [first, second] = await poll(async () => receiver.at("/flaky"), (r) => r.length >= 2, 30_000);
    expect(first!.type).toBe("webhook.test");
    expect(second!.id).toBe(first!.id);
    const gapS = Number(second!.headers["webhook-timestamp"]) - Number(first!.headers["webhook-timestamp"]);
    expect(gapS).toBeGreaterThanOrEqual(4);
    const log = await poll(() => stack.api<{ items: Record<string, unknown>[] }>("GET", `/v1/webhooks/${webhookId}/deliveries`, undefined, key),
      (r) => r.body.items[0]?.status === "delivered");
    expect(log.body.items).toEqual([expect.objectContaining({ event_id: first!.id, type: "webhook.test", attempts: 2, last_status_code: 200, next_attempt_at: null })]);
  }, 60_000);

  it("a receiver that hangs is cut off at 10 s and the event retried about 5 s later", async () => {
    receiver.answers.set("/hang", ["hang", 200]);
    const { key, webhookId } = await accountWithEndpoint("/hang", 10_000_000);
    await stack.api("POST", `/v1/webhooks/${webhookId}/test`, undefined, key);
    const failed = await poll(() => stack.api<{ items: Record<string, unknown>[] }>("GET", `/v1/webhooks/${webhookId}/deliveries`, undefined, key),
      (r) => r.body.items[0]?.attempts === 1 || r.body.items[0]?.status === "delivered", 30_000);
    if (failed.body.items[0]!.attempts === 1) {
      expect(failed.body.items[0]).toMatchObject({ status: "pending", last_status_code: null, last_error: "no answer within 10 s" });
    }
    const [hung, retried] = await poll(async () => receiver.at("/hang"), (r) => r.length >= 2, 30_000);
    expect(retried!.id).toBe(hung!.id);
    // Cut at 10 s, then the first backoff of about 5 s.
    expect(retried!.at - hung!.at).toBeGreaterThanOrEqual(14_000);
    expect(retried!.at - hung!.at).toBeLessThan(25_000);
  }, 90_000);

  it("after rotate-secret a delivery carries two signatures: the new secret and the previous one each verify it", async () => {
    const { key, webhookId } = await accountWithEndpoint("/rotate", 10_000_000);
    const previous = receiver.secrets.get("/rotate")!;
    const rotated = await stack.api<{ secret: string }>("POST", `/v1/webhooks/${webhookId}/rotate-secret`, undefined, key);
    expect(rotated.status).toBe(200);
    receiver.secrets.set("/rotate", rotated.body.secret);
    await stack.api("POST", `/v1/webhooks/${webhookId}/test`, undefined, key);
    const [delivered] = await poll(async () => receiver.at("/rotate"), (r) => r.length >= 1);
    expect((delivered!.headers["webhook-signature"] as string).split(" ")).toHaveLength(2);
    expect(new Webhook(previous).verify(delivered!.body, delivered!.headers as Record<string, string>)).toMatchObject({ type: "webhook.test" });
  }, 60_000);

  it("gpu webhooks create, ls, test, deliveries and rm", async () => {
    const account = await admin("POST", "/accounts", { balance_micros: 10_000_000 });
    const key = (await admin("POST", `/accounts/${account.id as string}/keys`, { name: "cli" })).key as string;
    const env = cliEnv(testTempDir("gpu-cli-config-"), { GPU_API_URL: stack.baseUrl, GPU_API_KEY: key });
    const created = await runGpu(["webhooks", "create", receiver.url("/cli"), "--events", "webhook.test,balance.low", "--description", "from the cli"], env);
    expect(created).toMatchObject({ code: 0, stdout: expect.stringMatching(/^whsec_\S+\n$/) });
    receiver.secrets.set("/cli", created.stdout.trim());
    const listed = JSON.parse((await runGpu(["webhooks", "ls", "--json"], env)).stdout) as { items: { id: string; events: string[]; description: string }[] };
    expect(listed.items).toEqual([expect.objectContaining({ events: ["webhook.test", "balance.low"], description: "from the cli" })]);
    const id = listed.items[0]!.id;
    expect((await runGpu(["webhooks", "ls"], env)).stdout).toContain(id);
    expect(await runGpu(["webhooks", "test", id], env)).toMatchObject({ code: 0, stdout: `✓ Test event queued for ${id}\n` });
    await poll(async () => receiver.at("/cli"), (r) => r.length === 1);
    const deliveries = await poll(async () => JSON.parse((await runGpu(["webhooks", "deliveries", id, "--json"], env)).stdout) as { items: { status: string }[] },
      (list) => list.items[0]?.status === "delivered");
    expect(deliveries.items).toHaveLength(1);
    expect((await runGpu(["webhooks", "deliveries", id], env)).stdout).toMatch(/webhook\.test\s+delivered\s+1\s+200/);
    expect(await runGpu(["webhooks", "rm", id], env)).toMatchObject({ code: 1, stderr: expect.stringContaining("--yes") });
    expect(JSON.parse((await runGpu(["webhooks", "rm", id, "--yes", "--json"], env)).stdout)).toEqual({ items: [] });
    expect(await runGpu(["webhooks", "test", id], env)).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_found, HTTP 404)") });
    expect(await runGpu(["webhooks", "create", "http://example.com/x"], env)).toMatchObject({ code: 1, stderr: expect.stringContaining("url: must be https") });
  }, 120_000);

  it.skipIf(!hasChromium)("the dashboard's Webhooks page: add an endpoint, its secret shown once, send a test, read the log, disable it", async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await signIn(page, stack.baseUrl, stack.setup.account.email, stack.setup.account.password);
      await nav(page, "Webhooks").click();
      await page.getByLabel("Endpoint URL").fill(receiver.url("/dashboard"));
      await page.getByLabel("Description").fill("from the page");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const secret = (await page.getByTestId("webhook-secret").textContent())!;
      expect(secret).toMatch(/^whsec_/);
      receiver.secrets.set("/dashboard", secret);
      const row = page.getByTestId("webhook-row").filter({ hasText: "from the page" });
      await row.getByRole("button", { name: "Send test" }).click();
      await poll(async () => receiver.at("/dashboard"), (r) => r.length === 1);
      await untilText(page.getByTestId("delivery-status").first(), "delivered");
      await row.getByRole("button", { name: "Disable" }).click();
      await untilText(row.getByTestId("webhook-state"), "Disabled");
      await nav(page, "API keys").click();
      await nav(page, "Webhooks").click();
      await row.waitFor();
      expect(await page.getByTestId("webhook-secret").count()).toBe(0);
      expect(await page.content()).not.toContain(secret.slice("whsec_".length));
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("the whole stack reset while a delivery is in flight: the event is delivered after, with the same webhook-id", async () => {
    receiver.answers.set("/reset", ["hang", 200]);
    const { key, webhookId } = await accountWithEndpoint("/reset", 10_000_000);
    await stack.api("POST", `/v1/webhooks/${webhookId}/test`, undefined, key);
    const [inFlight] = await poll(async () => receiver.at("/reset"), (r) => r.length >= 1);
    await stack.stop({ keepState: true });
    resumed = await startE2eStack({}, {}, { resume: { stateDir: stack.stateDir, baseUrl: stack.baseUrl } });
    const [, after] = await poll(async () => receiver.at("/reset"), (r) => r.length >= 2, 60_000);
    expect(after!.id).toBe(inFlight!.id);
    expect(receiver.at("/reset").filter((r) => r.id !== inFlight!.id)).toEqual([]);
  }, 180_000);
});
