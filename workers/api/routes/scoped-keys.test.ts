// Scoped, expiring, instance-kept API keys through the real Worker and objects in workerd: what a key
// is made with and shows, the requests refused 400 naming the field, expiry at the exact second on the
// account's clock, a key kept to some instances (404 for the others, lists of its own, no launch), a
// key never holding more than its maker's role nor a key-made key more than its maker key, and the
// application server's key (instances:use, one instance) through the proxy's slow path.
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { iso } from "../../../core/clock.ts";
import { sha256Hex } from "../../../core/hash.ts";
import { currentKeySet } from "../../../durable-objects/account/credentials/key-set.ts";
import { roleRefusalMessage } from "../../../durable-objects/contracts/members.ts";
import { scopeRefusalMessage } from "../../../durable-objects/contracts/scopes.ts";
import { sqlFor } from "../../../durable-objects/sql.ts";
import { callJson } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { accountStub, joined, ownedAccount } from "../../../test/support/workerd/members.ts";
import { countOpenProxyCalls, proxyGet } from "../../../test/support/workerd/proxy-host.ts";
import { advanceClock, freezeClock, resumeClock, withFrozenClock } from "../../../test/support/workerd/test-clock.ts";

const DAY_MS = 24 * 3_600_000;
const ABSENT = "i-aaaaaaaaaaaaaaaa";

interface Made {
  id: string;
  key: string;
  scopes: string[];
  instance_ids: string[] | null;
  expires_at: string | null;
}

async function makeKey(key: string, body: Record<string, unknown>): Promise<Made> {
  const made = await callJson<Made>("POST", "/v1/keys", { key, body });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body;
}

const forbidden = (message: string) => ({ status: 403, body: { error: "forbidden", message } });

describe("a key's scopes, instances and expiry", () => {
  it("are made as asked, shown in the answer and the list; left out: all rights, every instance, never", async () => {
    const { owner } = await ownedAccount();
    await withFrozenClock(async () => {
      const expiresAt = iso(Date.now() + 30 * DAY_MS);
      const made = await makeKey(owner.key, { name: "reader", scopes: ["instances:read", "billing:read"], expires_at: expiresAt.replace("Z", "+00:00") });
      expect(made).toMatchObject({ scopes: ["instances:read", "billing:read"], instance_ids: null, expires_at: expiresAt, monthly_limit_micros: null });
      const plain = await makeKey(owner.key, { name: "plain" });
      expect(plain).toMatchObject({ scopes: ["*"], instance_ids: null, expires_at: null });
      const listed = await callJson<{ items: Made[] }>("GET", "/v1/keys", { key: owner.key });
      expect(listed.body.items.find((k) => k.id === made.id)).toMatchObject({ scopes: ["instances:read", "billing:read"], expires_at: expiresAt });
    });
  });

  it.each([
    [{ scopes: ["*", "instances:read"] }, /^scopes: `\*` stands alone/],
    [{ scopes: ["instances:read", "instances:read"] }, /^scopes: lists a scope twice/],
    [{ scopes: [] }, /^scopes: /],
    [{ scopes: ["instances:launch"] }, /^scopes\.0: /],
    [{ instance_ids: ["i-nope"] }, /^instance_ids\.0: each must be an instance id/],
    [{ instance_ids: Array.from({ length: 51 }, (_, i) => `i-${"a".repeat(14)}${"abcdefghijklmnopqrstuvwxyz234567"[i % 32]}${"ab"[Math.floor(i / 32)]}`) }, /^instance_ids: /],
    [{ instance_ids: [ABSENT] }, new RegExp(`^instance_ids: no instance ${ABSENT} in this account$`)],
    [{ expires_at: "tomorrow" }, /^expires_at: must be an ISO 8601 time/],
    [{ expires_at: "2000-01-01T00:00:00Z" }, /^expires_at: must be in the future/],
    [{ expires_at: iso(Date.now() + 366 * DAY_MS) }, /^expires_at: at most 365 days ahead/],
    [{ monthly_limit_micros: -1 }, /^monthly_limit_micros: /],
  ])("%j is 400 invalid naming the field, and makes no key", async (body, message) => {
    const { owner } = await ownedAccount();
    const refused = await callJson("POST", "/v1/keys", { key: owner.key, body });
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(message) } });
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/keys", { key: owner.key })).body.items).toHaveLength(1);
  });

  it("an expiring key answers until the second before its expiry and 401 saying when from that second on, on the account's clock", async () => {
    const { owner } = await ownedAccount();
    const now = freezeClock();
    try {
      const expiresAt = iso(now + 60_000);
      const made = await makeKey(owner.key, { expires_at: expiresAt });
      advanceClock(59_999);
      expect((await callJson("GET", "/v1/me", { key: made.key })).status).toBe(200);
      advanceClock(1);
      expect(await callJson("GET", "/v1/me", { key: made.key })).toEqual({
        status: 401, headers: expect.anything(), body: { error: "unauthorized", message: `the key expired at ${expiresAt}` },
      });
      expect((await callJson("GET", "/v1/instances", { key: made.key })).status).toBe(401);
      const listed = await callJson<{ items: Made[] }>("GET", "/v1/keys", { key: owner.key });
      expect(listed.body.items.find((k) => k.id === made.id)).toMatchObject({ expires_at: expiresAt });
    } finally {
      resumeClock();
    }
  });

  it("renaming the account needs account:write besides billing:write", async () => {
    const { owner } = await ownedAccount();
    const payer = await makeKey(owner.key, { scopes: ["billing:write"] });
    expect(await callJson("PATCH", "/v1/account", { key: payer.key, body: { name: "Acme" } })).toMatchObject(forbidden(scopeRefusalMessage("account:write")));
    expect((await callJson("PATCH", "/v1/account", { key: payer.key, body: { low_balance_micros: 1_000_000 } })).status).toBe(200);
    const both = await makeKey(owner.key, { scopes: ["billing:write", "account:write"] });
    expect((await callJson("PATCH", "/v1/account", { key: both.key, body: { name: "Acme" } })).status).toBe(200);
  });
});

describe("a key never holds more than its maker", () => {
  it("a member's key is within their role: a scope none of whose routes the role may call is refused naming it, and `*` is the role's rights", async () => {
    const { id, owner } = await ownedAccount();
    const developer = await joined(id, owner.key, "developer");
    expect(await callJson("POST", "/v1/keys", { key: developer.key, body: { scopes: ["billing:write"] } })).toMatchObject(
      forbidden("the scope billing:write is beyond your role (developer): its routes are for owner, admin, billing"),
    );
    const all = await makeKey(developer.key, { scopes: ["*"] });
    expect(await callJson("POST", "/v1/billing/checkout", { key: all.key, body: { amount_micros: 10_000_000 } })).toMatchObject(
      forbidden(roleRefusalMessage(["owner", "admin", "billing"], "developer")),
    );
    expect((await makeKey(developer.key, { scopes: ["instances:write", "billing:read"] })).scopes).toEqual(["instances:write", "billing:read"]);
  });

  it("a key made with a key holds at most its scopes, instances and expiry; what is left out is that key's", async () => {
    const { owner } = await ownedAccount();
    await withFrozenClock(async () => {
      const expiresAt = iso(Date.now() + 7 * DAY_MS);
      const reader = await makeKey(owner.key, { scopes: ["instances:use", "account:write"], expires_at: expiresAt });
      const beyond = (what: string) => forbidden(`a key made with a key holds at most that key's rights: ${what}`);
      expect(await callJson("POST", "/v1/keys", { key: reader.key, body: { scopes: ["instances:write"] } })).toMatchObject(beyond("the scope instances:write is beyond it"));
      expect(await callJson("POST", "/v1/keys", { key: reader.key, body: { scopes: ["*"] } })).toMatchObject(beyond("the scope * is beyond it"));
      expect(await callJson("POST", "/v1/keys", { key: reader.key, body: { scopes: ["instances:read"], expires_at: null } })).toMatchObject(
        beyond(`it expires at ${expiresAt}, so must this one`),
      );
      expect(await callJson("POST", "/v1/keys", { key: reader.key, body: { expires_at: iso(Date.now() + 8 * DAY_MS) } })).toMatchObject(
        beyond(`it expires at ${expiresAt}, so must this one`),
      );
      const inherited = await makeKey(reader.key, {});
      expect(inherited).toMatchObject({ scopes: ["instances:use", "account:write"], instance_ids: null, expires_at: expiresAt });
      const sooner = iso(Date.parse(expiresAt) - DAY_MS);
      const narrower = await makeKey(reader.key, { scopes: ["instances:read"], expires_at: sooner });
      expect(narrower).toMatchObject({ scopes: ["instances:read"], expires_at: sooner });
    });
  });

  it("a key made with a key with a monthly limit has one no higher: else it could spend past it", async () => {
    const { owner } = await ownedAccount();
    const limited = await makeKey(owner.key, { scopes: ["instances:write", "account:write"], monthly_limit_micros: 5_000_000 });
    const beyond = forbidden("a key made with a key holds at most that key's rights: its monthly limit is 5000000 micro-dollars, so this one's must be at most that");
    expect(await callJson("POST", "/v1/keys", { key: limited.key, body: { monthly_limit_micros: null } })).toMatchObject(beyond);
    expect(await callJson("POST", "/v1/keys", { key: limited.key, body: { monthly_limit_micros: 5_000_001 } })).toMatchObject(beyond);
    expect(await makeKey(limited.key, {})).toMatchObject({ monthly_limit_micros: 5_000_000 });
    expect(await makeKey(limited.key, { monthly_limit_micros: 1_000_000 })).toMatchObject({ monthly_limit_micros: 1_000_000 });
  });
});

describe("a key kept to some instances", () => {
  let agent: FakeAgent;
  let accountId: string;
  let ownerKey: string;
  let mine: string;
  let other: string;

  beforeAll(async () => {
    agent = await FakeAgent.online("scoped-keys-host", Array(4).fill("rtx4090"));
    agent.serveHttp();
    const account = await ownedAccount();
    accountId = account.id;
    ownerKey = account.owner.key;
    mine = await runningOn(agent, ownerKey);
    other = await runningOn(agent, ownerKey);
  });

  it("reaches only those: every other answers 404 as if absent, lists show only its own, a launch is refused", async () => {
    const kept = await makeKey(ownerKey, { scopes: ["instances:write"], instance_ids: [mine] });
    expect((await callJson<{ items: { id: string }[] }>("GET", "/v1/instances", { key: kept.key })).body.items.map((i) => i.id)).toEqual([mine]);
    expect((await callJson("GET", `/v1/instances/${mine}`, { key: kept.key })).status).toBe(200);
    const absent = { status: 404, body: { error: "not_found", message: `no instance ${other} in this account` } };
    for (const [method, path] of [
      ["GET", `/v1/instances/${other}`], ["GET", `/v1/instances/${other}/events`], ["PATCH", `/v1/instances/${other}`],
      ["POST", `/v1/instances/${other}/stop`], ["DELETE", `/v1/instances/${other}`], ["GET", `/v1/instances/${other}/metrics`],
    ] as const) {
      const body = method === "PATCH" ? { label: "x" } : undefined;
      expect(await callJson(method, path, { key: kept.key, body }), `${method} ${path}`).toMatchObject(absent);
    }
    expect(await callJson("POST", "/v1/instances", { key: kept.key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } })).toMatchObject(
      forbidden("this API key reaches only its instance_ids: it may not launch another instance"),
    );
    expect((await callJson<{ status: string }>("GET", `/v1/instances/${other}`, { key: ownerKey })).body.status).toBe("running");
  });

  it("the application server's key (instances:use, one instance) proxies to it on the hosts' fast path, and can neither launch, stop, destroy nor see another", async () => {
    const app = await makeKey(ownerKey, { name: "app server", scopes: ["instances:use"], instance_ids: [mine] });
    const counter = await countOpenProxyCalls();
    try {
      expect((await proxyGet(mine, app.key)).status).toBe(200);
      expect(counter.openProxyCalls()).toBe(0);
      expect((await proxyGet(other, app.key)).status).toBe(404);
      expect(counter.openProxyCalls()).toBe(1);
    } finally {
      await counter.stop();
    }
    expect((await callJson<{ items: { id: string }[] }>("GET", "/v1/instances", { key: app.key })).body.items.map((i) => i.id)).toEqual([mine]);
    expect((await callJson("GET", `/v1/instances/${other}`, { key: app.key })).status).toBe(404);
    const writes = forbidden(scopeRefusalMessage("instances:write"));
    expect(await callJson("POST", "/v1/instances", { key: app.key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } })).toMatchObject(writes);
    expect(await callJson("POST", `/v1/instances/${mine}/stop`, { key: app.key })).toMatchObject(writes);
    expect(await callJson("DELETE", `/v1/instances/${mine}`, { key: app.key })).toMatchObject(writes);
    expect((await callJson<{ status: string }>("GET", `/v1/instances/${mine}`, { key: ownerKey })).body.status).toBe("running");
  });

  it("the proxy's fast path holds the keys that grant instances:use: of every instance and never expiring as they are, the others with their instances and expiry", async () => {
    const everything = await makeKey(ownerKey, {});
    const user = await makeKey(ownerKey, { scopes: ["instances:use"] });
    const reader = await makeKey(ownerKey, { scopes: ["instances:read"] });
    const kept = await makeKey(ownerKey, { scopes: ["instances:use"], instance_ids: [mine] });
    const expiring = await makeKey(ownerKey, { expires_at: iso(Date.now() + DAY_MS) });
    const { hashes, limited } = await runInDurableObject(accountStub(accountId), (_, state) => currentKeySet(sqlFor(state.storage), accountId));
    expect(hashes).toEqual(expect.arrayContaining([await sha256Hex(everything.key), await sha256Hex(user.key)]));
    for (const left of [reader, kept, expiring]) expect(hashes).not.toContain(await sha256Hex(left.key));
    expect(limited).toEqual(expect.arrayContaining([
      { hash: await sha256Hex(kept.key), instance_ids: [mine], expires_ms: null },
      { hash: await sha256Hex(expiring.key), instance_ids: null, expires_ms: Date.parse(expiring.expires_at!) },
    ]));
    expect(limited!.map((key) => key.hash)).not.toContain(await sha256Hex(reader.key));
    expect((await proxyGet(mine, reader.key)).status).toBe(403);
  });
});
