import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { asBrowser, browser, signIn, signUp } from "../../../test/support/workerd/session-client.ts";
import { advanceClock } from "../../../test/support/workerd/test-clock.ts";

const DAY = 24 * 3_600_000;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("session-host", Array(4).fill("rtx4090"));
});

describe("the session cookie in place of an API key", () => {
  it.each([["/v1/me"], ["/v1/gpus"], ["/v1/catalog"], ["/v1/instances"], ["/v1/keys"], ["/v1/billing/ledger"]])(
    "GET %s with the cookie and no Origin is 200",
    async (path) => {
      const { session } = await signUp();
      expect((await asBrowser("GET", path, session, { origin: null })).status).toBe(200);
    },
  );

  it("launch, rename, stop and destroy work with the cookie and this service's Origin", async () => {
    const { session } = await signUp();
    const id = await launchAs(session);
    expect((await asBrowser("PATCH", `/v1/instances/${id}`, session, { body: { label: "renamed" } })).body).toMatchObject({ label: "renamed" });
    expect((await asBrowser("POST", `/v1/instances/${id}/stop`, session)).status).toBe(204);
    expect((await asBrowser("DELETE", `/v1/instances/${id}`, session)).status).toBe(204);
  });

  it.each([
    ["POST", "/v1/keys", { name: "x" }],
    ["POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" }],
    ["PATCH", "/v1/instances/i-abcdefghijklmnop", { label: "x" }],
    ["POST", "/v1/instances/i-abcdefghijklmnop/stop", undefined],
    ["DELETE", "/v1/keys/key-abcdefghijkl", undefined],
  ])("%s %s with the cookie and no Origin, or another site's, is 403 forbidden", async (method, path, body) => {
    const { session } = await signUp();
    for (const origin of [null, "https://evil.example", "http://gpu.test.evil.example", "null"]) {
      const response = await asBrowser(method, path, session, { origin, body });
      expect(response.status, `Origin ${origin}`).toBe(403);
      expect(response.body).toEqual({ error: "forbidden", message: expect.stringContaining(BASE) });
    }
    expect((await asBrowser("GET", "/v1/keys", session)).body).toEqual({ items: [] });
  });

  it("an API key needs no Origin, and a request with Authorization is judged by it alone", async () => {
    const { key } = await newAccount();
    expect((await callJson("POST", "/v1/keys", { key, body: { name: "from ci" } })).status).toBe(201);
    const { session } = await signUp();
    const badKeyGoodCookie = await callJson("GET", "/v1/me", { headers: { ...browser(session), authorization: "Bearer nope" } });
    expect(badKeyGoodCookie.status).toBe(401);
  });

  it("a session token is a cookie only: sent as a Bearer token it is 401", async () => {
    const { session } = await signUp();
    expect((await callJson("GET", "/v1/me", { key: session })).status).toBe(401);
  });

  it("the proxy keeps Bearer credentials only: the cookie does not open it", async () => {
    const { session } = await signUp();
    const id = await launchAs(session);
    const response = await call("GET", `/v1/instances/${id}/proxy/8888/health`, { headers: browser(session) });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "unauthorized", message: expect.any(String) });
    await asBrowser("DELETE", `/v1/instances/${id}`, session);
  });

  it("a cookie that is no session (malformed, of no account, or ended) is 401 and is cleared", async () => {
    const account = await signUp();
    for (const cookie of ["nope", `gps_${account.id}_${"a".repeat(32)}`, `gps_acc-aaaaaaaaaaaaaaaa_${"a".repeat(32)}`]) {
      const response = await call("GET", "/v1/me", { headers: { cookie: `gpr_session=${cookie}` } });
      expect(response.status).toBe(401);
    }
    const refused = await call("GET", "/v1/me", { headers: { cookie: `gpr_session=gps_${account.id}_${"a".repeat(32)}` } });
    expect(refused.headers.getSetCookie()).toEqual([expect.stringMatching(/^gpr_session=; Max-Age=0/)]);
    const renewed = await call("GET", "/v1/me", { headers: browser(account.session) });
    expect(renewed.headers.getSetCookie()).toEqual([expect.stringMatching(new RegExp(`^gpr_session=${account.session}; Max-Age=2592000;`))]);
  });

  it("a session ends after 30 days without use; use keeps it alive", async () => {
    const account = await signUp();
    const idle = await signIn(account.email, account.password);
    advanceClock(29 * DAY);
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(200);
    advanceClock(29 * DAY);
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(200);
    expect((await asBrowser("GET", "/v1/me", idle)).status).toBe(401);
    advanceClock(30 * DAY);
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(401);
    await signIn(account.email, account.password);
  });
});

describe("one account's session never sees another's data", () => {
  it("instances, keys and the ledger of another account are invisible and untouchable", async () => {
    const mine = await signUp();
    const theirs = await signUp();
    const theirInstance = await launchAs(theirs.session);
    const theirKey = await asBrowser("POST", "/v1/keys", theirs.session, { body: { name: "theirs" } });
    const theirKeyId = theirKey.body.id as string;

    expect((await asBrowser("GET", "/v1/instances", mine.session)).body).toEqual({ items: [] });
    for (const [method, path] of [
      ["GET", `/v1/instances/${theirInstance}`],
      ["GET", `/v1/instances/${theirInstance}/events`],
      ["PATCH", `/v1/instances/${theirInstance}`],
      ["POST", `/v1/instances/${theirInstance}/stop`],
      ["DELETE", `/v1/instances/${theirInstance}`],
      ["DELETE", `/v1/keys/${theirKeyId}`],
    ] as const) {
      const response = await asBrowser(method, path, mine.session, { body: method === "PATCH" ? { label: "mine now" } : undefined });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await asBrowser("GET", "/v1/keys", mine.session)).body).toEqual({ items: [] });
    expect(((await asBrowser("GET", "/v1/billing/ledger", mine.session)).body as { items: unknown[] }).items).toEqual([]);

    expect((await asBrowser("GET", `/v1/instances/${theirInstance}`, theirs.session)).body).toMatchObject({ label: "", status: "creating" });
    expect(((await asBrowser("GET", "/v1/keys", theirs.session)).body as { items: { id: string }[] }).items.map((k) => k.id)).toEqual([theirKeyId]);
    expect((await callJson("GET", "/v1/me", { key: theirKey.body.key as string })).status).toBe(200);
    await asBrowser("DELETE", `/v1/instances/${theirInstance}`, theirs.session);
  });
});

/** Launches a 1-GPU pytorch instance with the session; returns its id. Needs balance: credited by the operator. */
async function launchAs(session: string): Promise<string> {
  const me = await asBrowser("GET", "/v1/me", session);
  const accountId = (me.body.account as { id: string }).id;
  await callJson("POST", `/admin/v1/accounts/${accountId}/credits`, { key: "test-admin-token-at-least-32-bytes-long", body: { amount_micros: 10_000_000 } });
  const launched = await asBrowser("POST", "/v1/instances", session, { body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } });
  if (launched.status !== 201) throw new Error(`launch: ${JSON.stringify(launched.body)}`);
  return launched.body.id as string;
}
