import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { asBrowser, signUp } from "../../../test/support/workerd/session-client.ts";

// Nothing listens on port 9 of the loopback host: deliveries there fail at once, without the network.
const LOOPBACK = "http://127.0.0.1:8787";
const CLOSED = "http://127.0.0.1:9/hook";
const HOOK = "https://hooks.example.com/gpu";

interface Endpoint { id: string; url: string; events: string[]; enabled: boolean; disabled_reason: string | null; secret?: string }
interface Delivery { id: string; event_id: string; type: string; status: string; attempts: number; last_error: string | null; next_attempt_at: string | null }

const create = (key: string, body: unknown, base?: string) => callJson<Endpoint>("POST", "/v1/webhooks", { key, body, base });

describe("/v1/webhooks", () => {
  it("POST shows a whsec_ secret once; GET lists the endpoint without it; PATCH changes it; DELETE removes it", async () => {
    const { key } = await newAccount();
    const created = await create(key, { url: HOOK, description: "ci" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_[a-z2-7]{16}$/), url: HOOK, events: ["*"], description: "ci", enabled: true,
      created_at: expect.any(String), disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...endpoint } = created.body;
    const listed = await callJson<{ items: Endpoint[] }>("GET", "/v1/webhooks", { key });
    expect(listed).toMatchObject({ status: 200, body: { items: [endpoint] } });
    expect(JSON.stringify(listed.body)).not.toContain(secret!.slice(6));

    const patched = await callJson<Endpoint>("PATCH", `/v1/webhooks/${endpoint.id}`, { key, body: { events: ["instance.port_ready"], enabled: false } });
    expect(patched).toMatchObject({ status: 200, body: { ...endpoint, events: ["instance.port_ready"], enabled: false } });

    const rotated = await callJson<{ secret: string }>("POST", `/v1/webhooks/${endpoint.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);

    expect((await callJson("DELETE", `/v1/webhooks/${endpoint.id}`, { key })).status).toBe(204);
    expect((await callJson<{ items: Endpoint[] }>("GET", "/v1/webhooks", { key })).body.items).toEqual([]);
    expect((await callJson("DELETE", `/v1/webhooks/${endpoint.id}`, { key })).status).toBe(404);
  });

  it("a signed-in browser manages endpoints too", async () => {
    const account = await signUp();
    const created = await asBrowser("POST", "/v1/webhooks", account.session, { body: { url: HOOK } });
    expect(created.status).toBe(201);
  });

  it("refuses bad URLs with 400 invalid naming url", async () => {
    const { key } = await newAccount();
    const cases: [string, RegExp, string?][] = [
      ["http://hooks.example.com/x", /^url: must be https/],
      ["ftp://hooks.example.com/x", /^url: must be https/],
      ["not a url", /^url: must be an absolute URL/],
      ["https://user:pass@hooks.example.com/x", /^url: must not contain credentials/],
      [`https://hooks.example.com/${"a".repeat(2048)}`, /^url: must be at most 2048 characters/],
      // Loopback over http only while the service itself is on loopback.
      ["http://127.0.0.1:9000/x", /^url: must be https \(http to a loopback host only while this service runs on one\)/],
    ];
    for (const [url, message] of cases) {
      const refused = await create(key, { url });
      expect(refused, url).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(message) } });
    }
    expect((await create(key, { url: "http://127.0.0.1:9000/x" }, LOOPBACK)).status).toBe(201);
    expect((await create(key, { url: "http://localhost:9000/x" }, LOOPBACK)).status).toBe(201);
    expect((await create(key, { url: "http://10.0.0.1/x" }, LOOPBACK)).body).toMatchObject({ error: "invalid", message: expect.stringMatching(/^url: /) });
    const { id } = (await create(key, { url: HOOK })).body;
    const patched = await callJson("PATCH", `/v1/webhooks/${id}`, { key, body: { url: "http://hooks.example.com/x" } });
    expect(patched).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^url: /) } });
    expect((await callJson<{ items: Endpoint[] }>("GET", "/v1/webhooks", { key })).body.items.find((e) => e.id === id)!.url).toBe(HOOK);
  });

  it("refuses unknown event types, unknown fields and a missing url with 400 invalid", async () => {
    const { key } = await newAccount();
    expect(await create(key, { url: HOOK, events: ["instance.exploded"] })).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^events/) } });
    expect(await create(key, { url: HOOK, events: [] })).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^events/) } });
    expect(await create(key, { url: HOOK, secret: "mine" })).toMatchObject({ status: 400, body: { error: "invalid" } });
    expect(await create(key, {})).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^url/) } });
  });

  it("the 11th endpoint is 409 conflict, also when created at the same time", async () => {
    const { key } = await newAccount();
    const statuses = (await Promise.all(Array.from({ length: 12 }, () => create(key, { url: HOOK })))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(await create(key, { url: HOOK })).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("10") } });
  });

  it("another account cannot see, change, test, rotate or delete an endpoint: 404", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const { id } = (await create(owner.key, { url: HOOK })).body;
    expect((await callJson<{ items: Endpoint[] }>("GET", "/v1/webhooks", { key: other.key })).body.items).toEqual([]);
    const attempts: [string, string, unknown?][] = [
      ["PATCH", `/v1/webhooks/${id}`, { enabled: false }], ["DELETE", `/v1/webhooks/${id}`], ["POST", `/v1/webhooks/${id}/rotate-secret`],
      ["POST", `/v1/webhooks/${id}/test`], ["GET", `/v1/webhooks/${id}/deliveries`], ["POST", `/v1/webhooks/${id}/deliveries/whd_x/retry`],
    ];
    for (const [method, path, body] of attempts) {
      expect(await callJson(method, path, { key: other.key, body }), `${method} ${path}`).toMatchObject({ status: 404, body: { error: "not_found" } });
    }
    expect((await callJson<{ items: Endpoint[] }>("GET", "/v1/webhooks", { key: owner.key })).body.items[0]).toMatchObject({ id, enabled: true });
  });

  it("without a credential every webhook route is 401", async () => {
    expect((await callJson("GET", "/v1/webhooks")).status).toBe(401);
    expect((await callJson("POST", "/v1/webhooks", { body: { url: HOOK } })).status).toBe(401);
  });

  it("a test event to a receiver that does not answer is logged as pending with its error and retried later; retry sends it again", async () => {
    const { key } = await newAccount();
    const { id } = (await create(key, { url: CLOSED }, LOOPBACK)).body;
    expect((await callJson("POST", `/v1/webhooks/${id}/test`, { key })).status).toBe(202);
    const deliveries = () => callJson<{ items: Delivery[] }>("GET", `/v1/webhooks/${id}/deliveries`, { key }).then((r) => r.body.items);
    const [failed] = await until(deliveries, (items) => items[0]?.attempts === 1, "the first attempt");
    expect(failed).toMatchObject({ type: "webhook.test", status: "pending", event_id: expect.stringMatching(/^msg_/), last_error: expect.any(String) });
    // The first retry waits about 5 s.
    const waitMs = Date.parse(failed!.next_attempt_at!) - Date.now();
    expect(waitMs).toBeGreaterThan(3_000);
    expect(waitMs).toBeLessThanOrEqual(5_000);

    expect((await callJson("POST", `/v1/webhooks/${id}/deliveries/${failed!.id}/retry`, { key })).status).toBe(202);
    const [again] = await until(deliveries, (items) => items[0]?.attempts === 2, "the retry");
    expect(again).toMatchObject({ id: failed!.id, event_id: failed!.event_id, status: "pending" });
    expect((await callJson("POST", `/v1/webhooks/${id}/deliveries/whd_none/retry`, { key })).status).toBe(404);
  });

  it("a disabled endpoint gets no test: 409 conflict", async () => {
    const { key } = await newAccount();
    const { id } = (await create(key, { url: HOOK })).body;
    await callJson("PATCH", `/v1/webhooks/${id}`, { key, body: { enabled: false } });
    expect(await callJson("POST", `/v1/webhooks/${id}/test`, { key })).toMatchObject({ status: 409, body: { error: "conflict" } });
  });

  it("the signing secret is stored sealed, never in clear", async () => {
    const { id: accountId, key } = await newAccount();
    const created = await create(key, { url: HOOK });
    const rotated = (await callJson<{ secret: string }>("POST", `/v1/webhooks/${created.body.id}/rotate-secret`, { key })).body.secret;
    const stored = await runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
      JSON.stringify(state.storage.sql.exec("SELECT * FROM webhooks").toArray()));
    for (const secret of [created.body.secret!, rotated]) expect(stored).not.toContain(secret.slice("whsec_".length));
  });
});

describe("PATCH /v1/account", () => {
  it("sets the balance.low threshold (default $5, 0 turns it off); GET /v1/me shows it", async () => {
    const { key } = await newAccount();
    expect((await callJson<{ account: { low_balance_micros: number } }>("GET", "/v1/me", { key })).body.account.low_balance_micros).toBe(5_000_000);
    const patched = await callJson<{ account: { low_balance_micros: number } }>("PATCH", "/v1/account", { key, body: { low_balance_micros: 0 } });
    expect(patched.status).toBe(200);
    expect(patched.body.account.low_balance_micros).toBe(0);
    expect((await callJson<{ account: { low_balance_micros: number } }>("GET", "/v1/me", { key })).body.account.low_balance_micros).toBe(0);
  });

  it("refuses a negative, fractional or unknown setting with 400 invalid naming the field, changing nothing", async () => {
    const { key } = await newAccount();
    for (const body of [{ low_balance_micros: -1 }, { low_balance_micros: 1.5 }, { low_balance_micros: "5" }]) {
      expect(await callJson("PATCH", "/v1/account", { key, body }), JSON.stringify(body)).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^low_balance_micros/) } });
    }
    expect(await callJson("PATCH", "/v1/account", { key, body: { low_balance_micros: 1, colour: "red" } })).toMatchObject({ status: 400, body: { error: "invalid" } });
    expect((await callJson<{ account: { low_balance_micros: number } }>("GET", "/v1/me", { key })).body.account.low_balance_micros).toBe(5_000_000);
    expect((await callJson("PATCH", "/v1/account", { body: { low_balance_micros: 1 } })).status).toBe(401);
  });
});
