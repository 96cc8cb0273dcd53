// GET /v1/audit-log in workerd: an entry exists exactly when its change committed (a refused change
// writes none), naming the right actor (a key, a person, the operator, the system) and address; its
// filters, its pages, the 400 days it keeps entries, and who may read it.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../durable-objects/contracts/audit.ts";
import type { AccountDO } from "../../../durable-objects/account/account-do.ts";
import { admin, call, callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { accountStub, joined, ownedAccount } from "../../../test/support/workerd/members.ts";
import { asBrowser, signUp } from "../../../test/support/workerd/session-client.ts";
import { stripeEvent } from "../../../test/support/stripe/stripe-events.ts";
import { createdSession, deliver } from "../../../test/support/workerd/stripe-webhook.ts";
import { advanceClock, withFrozenClock } from "../../../test/support/workerd/test-clock.ts";

const DAY = 86_400_000;
const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r me@ed25519";
const HOUR = 3_600_000;
const FROM = "203.0.113.7";
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("audit-host", Array(4).fill("rtx4090"));
});

interface Page {
  items: AuditEntry[];
  next_cursor: string | null;
}

const auditLog = async (key: string, query = "") => {
  const read = await callJson<Page>("GET", `/v1/audit-log${query}`, { key });
  expect(read.status, JSON.stringify(read.body)).toBe(200);
  return read.body;
};
const actions = (page: Page) => page.items.map((entry) => entry.action);
const keyIdOf = async (key: string, name: string) =>
  (await callJson<{ items: { id: string; name: string }[] }>("GET", "/v1/keys", { key })).body.items.find((k) => k.name === name)!.id;
const storedEntries = (accountId: string) =>
  runInDurableObject(accountStub(accountId), (_: AccountDO, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit_log").one().n);

describe("the audit log", () => {
  it("a launch writes one entry naming the key, its name and the caller's address; a refused launch writes none", async () => {
    const account = await newAccount(50_000_000);
    const launched = await callJson<{ id: string }>("POST", "/v1/instances", {
      key: account.key, headers: { "cf-connecting-ip": FROM }, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", label: "train" },
    });
    expect(launched.status).toBe(201);
    const page = await auditLog(account.key, "?action=instance.launch");
    expect(page.items).toEqual([{
      id: expect.any(Number), at: expect.any(String), action: "instance.launch",
      actor: { type: "key", id: await keyIdOf(account.key, "test"), label: "test" },
      target: { type: "instance", id: launched.body.id }, ip: FROM, detail: `"train": 1 × rtx4090, pytorch`,
    }]);

    const poor = await newAccount(GPU_MODELS.rtx4090.price_hour_micros - 1);
    const before = await storedEntries(poor.id);
    const refused = await call("POST", "/v1/instances", { key: poor.key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } });
    expect(refused.status).toBe(402);
    expect(await storedEntries(poor.id)).toBe(before);
    expect(actions(await auditLog(poor.key))).not.toContain("instance.launch");
    await call("DELETE", `/v1/instances/${launched.body.id}`, { key: account.key });
  });

  it("a stop, a start and a destroy each write one entry; a stop refused with 409 writes none", async () => {
    const account = await newAccount(50_000_000);
    const id = await runningOn(agent, account.key);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key: account.key })).status).toBe(204);
    await agent.waitForCommand(id, "stop");
    agent.report(id, "stopped");
    expect((await call("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    expect((await call("DELETE", `/v1/instances/${id}`, { key: account.key })).status).toBe(204);
    const before = await storedEntries(account.id);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key: account.key })).status).toBe(409);
    expect((await call("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(409);
    expect(await storedEntries(account.id)).toBe(before);
    const page = await auditLog(account.key, "?action=instance");
    expect(actions(page)).toEqual(["instance.destroy", "instance.start", "instance.stop", "instance.launch"]);
    expect(page.items.every((entry) => entry.target.id === id && entry.actor.label === "test")).toBe(true);
  });

  it("a signed-in person is named by user id and email, with their address; a key they made by its name", async () => {
    const person = await signUp();
    const made = await asBrowser("POST", "/v1/keys", person.session, { body: { name: "ci" }, headers: { "cf-connecting-ip": FROM } });
    expect(made.status).toBe(201);
    const { key, id } = made.body as { key: string; id: string };
    const created = await auditLog(key, "?action=key.create");
    expect(created.items[0]).toMatchObject({ actor: { type: "user", id: person.userId, label: person.email }, target: { type: "key", id }, ip: FROM });
    expect(created.items[0]!.detail).toContain(`"ci"`);
    expect((await call("DELETE", `/v1/keys/${id}`, { key, headers: { "cf-connecting-ip": "198.51.100.2" } })).status).toBe(204);
    expect((await asBrowser("DELETE", `/v1/keys/${id}`, person.session)).status).toBe(404);
    const revoked = await asBrowser("GET", "/v1/audit-log?action=key.revoke", person.session);
    expect((revoked.body as unknown as Page).items).toEqual([expect.objectContaining({ actor: { type: "key", id, label: "ci" }, ip: "198.51.100.2" })]);
  });

  it("the operator's credit, limits and keys are the operator's, with no address; member changes name the member", async () => {
    const { id, owner } = await ownedAccount();
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: 5_000_000, note: "goodwill" })).status).toBe(200);
    expect((await admin("PATCH", `/accounts/${id}`, { max_gpus: 3 })).status).toBe(200);
    const operator = await auditLog(owner.key, "?actor=operator");
    expect(actions(operator)).toEqual(["account.limits", "balance.credit"]);
    expect(operator.items[0]).toMatchObject({ actor: { type: "operator", id: null, label: "operator" }, ip: null, detail: "max_gpus 3" });
    expect(operator.items[1]!.detail).toBe("5000000 micros: goodwill");

    const developer = await joined(id, owner.key, "developer");
    expect((await call("PATCH", `/v1/members/${developer.user_id}`, { key: owner.key, body: { role: "viewer" } })).status).toBe(200);
    expect((await call("PATCH", `/v1/members/${owner.user_id}`, { key: owner.key, body: { role: "viewer" } })).status).toBe(409);
    const members = await auditLog(owner.key, "?action=member");
    expect(actions(members)).toEqual(["member.role", "member.join", "member.invite"]);
    expect(members.items[0]).toMatchObject({ target: { type: "user", id: developer.user_id }, detail: `${developer.email}: developer → viewer` });
    expect(members.items[1]).toMatchObject({ actor: { type: "user", id: developer.user_id, label: developer.email } });
  });

  it("webhooks, SSH keys, volumes, invitations, removals and the account's settings each write one entry when they commit, none when refused", async () => {
    const { id, owner } = await ownedAccount();
    const as = (method: string, path: string, body?: unknown) => callJson<{ id: string }>(method, `/v1${path}`, { key: owner.key, body });
    const hook = (await as("POST", "/webhooks", { url: "https://hooks.example.com/gpu" })).body.id;
    expect((await as("PATCH", `/webhooks/${hook}`, { enabled: false })).status).toBe(200);
    expect((await as("POST", `/webhooks/${hook}/rotate-secret`)).status).toBe(200);
    expect((await as("DELETE", `/webhooks/${hook}`)).status).toBe(204);
    const ssh = (await as("POST", "/ssh-keys", { public_key: SSH_KEY, name: "laptop" })).body.id;
    expect((await as("POST", "/ssh-keys", { public_key: SSH_KEY })).status).toBe(409);
    expect((await as("DELETE", `/ssh-keys/${ssh}`)).status).toBe(204);
    const volume = (await as("POST", "/volumes", { name: "data", size_gb: 1 })).body.id;
    expect((await as("POST", "/volumes", { name: "data", size_gb: 1 })).status).toBe(409);
    expect((await as("PATCH", `/volumes/${volume}`, { size_gb: 2 })).status).toBe(200);
    expect((await as("PATCH", `/volumes/${volume}`, { size_gb: 1 })).status).toBe(400);
    expect((await as("POST", `/volumes/${volume}/snapshots`, { name: "first" })).status).toBe(201);
    expect((await as("DELETE", `/volumes/${volume}`)).status).toBe(204);
    const invited = await callJson<{ id: string }>("POST", "/v1/members/invitations", { key: owner.key, body: { email: "later@example.com", role: "viewer" } });
    expect((await as("DELETE", `/members/invitations/${invited.body.id}`)).status).toBe(204);
    expect((await as("DELETE", `/members/invitations/${invited.body.id}`)).status).toBe(404);
    const viewer = await joined(id, owner.key, "viewer");
    expect((await as("DELETE", `/members/${viewer.user_id}`)).status).toBe(204);
    expect((await as("DELETE", `/members/${owner.user_id}`)).status).toBe(409);
    expect((await as("PATCH", "/account", { name: "Lab" })).status).toBe(200);
    expect((await as("PATCH", "/account", { monthly_budget_micros: 5_000_000, budget_action: "notify" })).status).toBe(200);

    const page = await auditLog(owner.key, "?actor=key&limit=200");
    expect(actions(page).reverse()).toEqual([
      "webhook.create", "webhook.update", "webhook.rotate_secret", "webhook.delete", "ssh_key.add", "ssh_key.remove",
      "volume.create", "volume.update", "volume.snapshot", "volume.delete", "member.invite", "invitation.revoke", "member.invite",
      "member.remove", "account.update", "account.update",
    ]);
    expect(page.items.slice(0, 2).map((entry) => entry.detail)).toEqual(["monthly_budget_micros 5000000, budget_action notify", 'name "Lab"']);
    expect(page.items.find((entry) => entry.action === "member.remove")).toMatchObject({ target: { type: "user", id: viewer.user_id } });
    expect(page.items.find((entry) => entry.action === "volume.delete")).toMatchObject({ target: { type: "volume", id: volume }, detail: "data" });
  });

  it("a card payment is credited by the system once, however often Stripe delivers it", async () => {
    const { id, key } = await newAccount(0);
    const completed = stripeEvent("checkout.session.completed", await createdSession("cs_test_audited", id, 2500));
    await Promise.all([deliver(completed), deliver(completed), deliver(completed)]);
    expect((await auditLog(key, "?action=payment")).items).toEqual([expect.objectContaining({
      action: "payment.credit", actor: { type: "system", id: null, label: "system" }, target: { type: "payment", id: "cs_test_audited" }, ip: null, detail: "25000000 micros by card",
    })]);
  });

  it("instances stopped because the balance ran out are stopped by the system", async () => {
    const account = await newAccount(GPU_MODELS.rtx4090.price_hour_micros);
    const id = await runningOn(agent, account.key);
    await withFrozenClock(async () => {
      advanceClock(HOUR + 1_000);
      await runDurableObjectAlarm(accountStub(account.id));
    });
    const [stop] = (await auditLog(account.key, "?action=instance.stop")).items;
    expect(stop).toMatchObject({ actor: { type: "system", id: null, label: "system" }, target: { type: "instance", id }, ip: null });
    expect(stop!.detail).toContain("balance");
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
  });

  it("a budget set below the month's spend stops what runs within the key's call, and the stop is still the system's", async () => {
    const account = await newAccount();
    const id = await runningOn(agent, account.key);
    await withFrozenClock(async () => {
      advanceClock(10 * 60_000);
      await runDurableObjectAlarm(accountStub(account.id));
      const set = await call("PATCH", "/v1/account", { key: account.key, body: { monthly_budget_micros: 1, budget_action: "stop" }, headers: { "cf-connecting-ip": FROM } });
      expect(set.status).toBe(200);
    });
    const [stop, budget] = (await auditLog(account.key, "?limit=2")).items;
    expect(stop).toMatchObject({ action: "instance.stop", actor: { type: "system" }, target: { id }, ip: null });
    expect(budget).toMatchObject({ action: "account.update", actor: { type: "key", label: "test" }, ip: FROM });
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
  });

  it("filters by actor (type, id or label) and action (exact or its group), newest first in pages that follow the cursor", async () => {
    const account = await newAccount();
    const made: string[] = [];
    for (const name of ["a", "b", "c", "d", "e"]) {
      const created = await callJson<{ id: string }>("POST", "/v1/keys", { key: account.key, body: { name } });
      made.push(created.body.id);
    }
    await call("DELETE", `/v1/keys/${made[0]}`, { key: account.key });
    const all = await auditLog(account.key);
    expect(actions(all)).toEqual(["key.revoke", "key.create", "key.create", "key.create", "key.create", "key.create", "key.create"]);
    expect(all.items.map((entry) => entry.id)).toEqual([...all.items.map((entry) => entry.id)].sort((a, b) => b - a));

    const seen: AuditEntry[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: Page = await auditLog(account.key, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items);
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(all.items);

    const byKey = await keyIdOf(account.key, "test");
    expect((await auditLog(account.key, `?actor=${byKey}`)).items).toHaveLength(6);
    expect((await auditLog(account.key, "?actor=test")).items).toHaveLength(6);
    expect((await auditLog(account.key, "?actor=key&action=key.create")).items).toHaveLength(5);
    expect(actions(await auditLog(account.key, "?actor=operator"))).toEqual(["key.create"]);
    expect((await auditLog(account.key, "?action=key.revoke")).items.map((entry) => entry.target.id)).toEqual([made[0]]);
    expect((await auditLog(account.key, "?action=ke")).items).toEqual([]);
  });

  it("refuses a bad query naming the field, and roles other than owner, admin and billing", async () => {
    const { id, owner } = await ownedAccount();
    for (const [query, field] of [["?limit=0", "limit"], ["?limit=201", "limit"], ["?cursor=abc", "cursor"], ["?actor=", "actor"]] as const) {
      const refused = await callJson<{ error: string; message: string }>("GET", `/v1/audit-log${query}`, { key: owner.key });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: "invalid", message: expect.stringContaining(field) });
    }
    for (const role of ["admin", "billing"] as const) {
      expect((await call("GET", "/v1/audit-log", { key: (await joined(id, owner.key, role)).key })).status).toBe(200);
    }
    for (const role of ["developer", "viewer"] as const) {
      const refused = await callJson<{ error: string; message: string }>("GET", "/v1/audit-log", { key: (await joined(id, owner.key, role)).key });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: "forbidden", message: expect.stringContaining("owner, admin or billing") });
    }
  });

  it("keeps entries 400 days: older ones go on the alarm, on the object's clock", async () => {
    const account = await newAccount();
    await withFrozenClock(async () => {
      await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 1_000_000, note: "old" });
      advanceClock(200 * DAY);
      await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 1_000_000, note: "newer" });
      advanceClock(200 * DAY - 1_000);
      await runDurableObjectAlarm(accountStub(account.id));
      expect((await auditLog(account.key, "?action=balance.credit")).items.map((entry) => entry.detail)).toEqual(["1000000 micros: newer", "1000000 micros: old"]);
      advanceClock(1_000);
      await runDurableObjectAlarm(accountStub(account.id));
      expect((await auditLog(account.key, "?action=balance.credit")).items.map((entry) => entry.detail)).toEqual(["1000000 micros: newer"]);
      expect(actions(await auditLog(account.key, "?actor=operator"))).toEqual(["balance.credit"]);
    });
  });
});
