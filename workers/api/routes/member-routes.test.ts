// /v1/members in workerd: invitations (single use, bound to the email, 7 days, revocable), role changes
// under the owner rules, a removal that ends the member's access and keys at once, keys acting with
// their maker's role, and two accounts of one person that never see each other's data.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { roleRefusalMessage } from "../../../durable-objects/contracts/members.ts";
import { currentKeySet } from "../../../durable-objects/account/credentials/key-set.ts";
import { sqlFor } from "../../../durable-objects/sql.ts";
import { callJson } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn } from "../../../test/support/workerd/instances.ts";
import { accountStub, invitationToken, joined, keyOf, newPerson, ownedAccount, personCredential } from "../../../test/support/workerd/members.ts";
import { uniqueEmail } from "../../../test/support/workerd/session-client.ts";
import { advanceClock, withFrozenClock } from "../../../test/support/workerd/test-clock.ts";

const DAY_MS = 24 * 3_600_000;

describe("invitations", () => {
  it("POST answers a link to /invite with the token after #; GET lists it pending; accepting adds the member with its role and uses it up", async () => {
    const { id, owner } = await ownedAccount();
    const email = uniqueEmail("dev");
    const created = await callJson<{ id: string; url: string; expires_at: string; created_at: string }>("POST", "/v1/members/invitations", {
      key: owner.key, body: { email: ` ${email.toUpperCase()} `, role: "developer" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^inv-[a-z2-7]{12}$/), email, role: "developer" });
    expect(created.body.url).toMatch(new RegExp(`^http://gpu\\.test/invite#gpv_${id}_[a-z2-7]{32}$`));
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(7 * DAY_MS);
    const pending = await callJson<{ items: unknown[] }>("GET", "/v1/members/invitations", { key: owner.key });
    expect(pending.body.items).toEqual([{ id: created.body.id, email, role: "developer", created_at: created.body.created_at, expires_at: created.body.expires_at }]);

    const token = created.body.url.split("#")[1]!;
    expect(await accountStub(id).invitationFor(token)).toEqual({ ok: true, invitation: { invitation_id: created.body.id, account_id: id, email, role: "developer" } });
    const person = { ...newPerson(), email };
    expect(await accountStub(id).acceptInvitation(token, person)).toEqual({ ok: true, account: { id, name: owner.email, role: "developer" } });
    const members = await callJson<{ items: { user_id: string; role: string; last_seen_at: string | null }[] }>("GET", "/v1/members", { key: owner.key });
    expect(members.body.items.map((m) => [m.user_id, m.role])).toEqual([[owner.user_id, "owner"], [person.user_id, "developer"]]);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/members/invitations", { key: owner.key })).body.items).toEqual([]);

    const again = await accountStub(id).acceptInvitation(token, { ...newPerson(), email });
    expect(again).toEqual({ ok: false, code: "not_found", message: "this invitation is not valid: used, revoked or expired" });
    expect(await accountStub(id).invitationFor(token)).toMatchObject({ ok: false, code: "not_found" });
  });

  it("is refused for another email (403), and stays good for its own", async () => {
    const { id, owner } = await ownedAccount();
    const email = uniqueEmail("invited");
    const token = await invitationToken(id, owner.key, email, "viewer");
    expect(await accountStub(id).acceptInvitation(token, newPerson())).toEqual({ ok: false, code: "forbidden", message: "this invitation is for another email" });
    expect(await accountStub(id).acceptInvitation(token, { ...newPerson(), email })).toMatchObject({ ok: true, account: { role: "viewer" } });
  });

  it("expires 7 days after it was made", async () => {
    await withFrozenClock(async () => {
      const { id, owner } = await ownedAccount();
      const email = uniqueEmail("late");
      const token = await invitationToken(id, owner.key, email, "viewer");
      advanceClock(7 * DAY_MS - 1);
      expect(await accountStub(id).invitationFor(token)).toMatchObject({ ok: true });
      advanceClock(1);
      expect(await accountStub(id).acceptInvitation(token, { ...newPerson(), email })).toMatchObject({ ok: false, code: "not_found" });
      expect((await callJson<{ items: unknown[] }>("GET", "/v1/members/invitations", { key: owner.key })).body.items).toEqual([]);
    });
  });

  it("DELETE revokes it: its link no longer works, and a second DELETE is 404; a new invitation for the email replaces the pending one", async () => {
    const { id, owner } = await ownedAccount();
    const email = uniqueEmail("revoked");
    const first = await invitationToken(id, owner.key, email, "viewer");
    const second = await invitationToken(id, owner.key, email, "developer");
    expect(await accountStub(id).invitationFor(first)).toMatchObject({ ok: false, code: "not_found" });
    const [pending] = (await callJson<{ items: { id: string; role: string }[] }>("GET", "/v1/members/invitations", { key: owner.key })).body.items;
    expect(pending).toMatchObject({ role: "developer" });
    expect((await callJson("DELETE", `/v1/members/invitations/${pending!.id}`, { key: owner.key })).status).toBe(204);
    expect(await accountStub(id).acceptInvitation(second, { ...newPerson(), email })).toMatchObject({ ok: false, code: "not_found" });
    expect(await callJson("DELETE", `/v1/members/invitations/${pending!.id}`, { key: owner.key })).toMatchObject({ status: 404, body: { error: "not_found" } });
  });

  it("refuses a member's email (409), an owner invited by an admin (403), and a bad email or role (400 naming the field)", async () => {
    const { id, owner } = await ownedAccount();
    const admin = await joined(id, owner.key, "admin");
    expect(await callJson("POST", "/v1/members/invitations", { key: owner.key, body: { email: admin.email, role: "viewer" } }))
      .toMatchObject({ status: 409, body: { error: "conflict", message: `${admin.email} is a member of this account already` } });
    expect(await callJson("POST", "/v1/members/invitations", { key: admin.key, body: { email: uniqueEmail(), role: "owner" } }))
      .toMatchObject({ status: 403, body: { error: "forbidden", message: "only an owner may invite an owner" } });
    expect(await callJson("POST", "/v1/members/invitations", { key: owner.key, body: { email: "not-an-email", role: "viewer" } }))
      .toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^email: /) } });
    expect(await callJson("POST", "/v1/members/invitations", { key: owner.key, body: { email: uniqueEmail(), role: "boss" } }))
      .toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^role: must be one of owner, admin, developer, billing, viewer/) } });
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/members/invitations", { key: owner.key })).body.items).toEqual([]);
  });
});

describe("roles", () => {
  it("the last owner can be neither demoted nor removed (409); with a second owner, either can", async () => {
    const { id, owner } = await ownedAccount();
    expect(await callJson("PATCH", `/v1/members/${owner.user_id}`, { key: owner.key, body: { role: "admin" } }))
      .toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("last owner cannot be demoted") } });
    expect(await callJson("DELETE", `/v1/members/${owner.user_id}`, { key: owner.key }))
      .toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("last owner cannot be removed") } });
    const second = await joined(id, owner.key, "owner");
    expect(await callJson("PATCH", `/v1/members/${owner.user_id}`, { key: second.key, body: { role: "admin" } })).toMatchObject({ status: 200, body: { role: "admin" } });
    expect(await callJson("DELETE", `/v1/members/${second.user_id}`, { key: second.key }))
      .toMatchObject({ status: 409, body: { error: "conflict" } });
  });

  it("an admin makes, demotes and removes no owner (403), and changes the others", async () => {
    const { id, owner } = await ownedAccount();
    const admin = await joined(id, owner.key, "admin");
    const dev = await joined(id, owner.key, "developer");
    const second = await joined(id, owner.key, "owner");
    expect(await callJson("PATCH", `/v1/members/${dev.user_id}`, { key: admin.key, body: { role: "owner" } }))
      .toMatchObject({ status: 403, body: { error: "forbidden", message: "only an owner may make an owner" } });
    expect(await callJson("PATCH", `/v1/members/${second.user_id}`, { key: admin.key, body: { role: "viewer" } }))
      .toMatchObject({ status: 403, body: { error: "forbidden", message: "only an owner may demote an owner" } });
    expect(await callJson("DELETE", `/v1/members/${second.user_id}`, { key: admin.key }))
      .toMatchObject({ status: 403, body: { error: "forbidden", message: "only an owner may remove an owner" } });
    expect(await callJson("PATCH", `/v1/members/${dev.user_id}`, { key: admin.key, body: { role: "billing" } }))
      .toMatchObject({ status: 200, body: { user_id: dev.user_id, email: dev.email, role: "billing" } });
    const roles = (await callJson<{ items: { user_id: string; role: string }[] }>("GET", "/v1/members", { key: dev.key })).body.items;
    expect(roles.filter((m) => m.role === "owner").map((m) => m.user_id).sort()).toEqual([owner.user_id, second.user_id].sort());
    expect(await callJson("PATCH", "/v1/members/usr-aaaaaaaaaaaaaaaa", { key: owner.key, body: { role: "viewer" } })).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect(await callJson("PATCH", "/v1/members/someone", { key: owner.key, body: { role: "viewer" } }))
      .toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^user_id: /) } });
  });

  it("a key acts with its maker's role as it is now, a key made with a key has the same maker, and a developer revokes only their own keys", async () => {
    const { id, owner } = await ownedAccount();
    const dev = await joined(id, owner.key, "developer");
    const made = await callJson<{ key: string; id: string }>("POST", "/v1/keys", { key: dev.key, body: { name: "made with a key" } });
    expect(made.status).toBe(201);
    expect(await callJson("GET", "/v1/me", { key: made.body.key })).toMatchObject({ status: 200, body: { account: { id, role: "developer" } } });
    const ownerKeyId = (await callJson<{ items: { id: string; prefix: string }[] }>("GET", "/v1/keys", { key: owner.key })).body.items.find((k) => owner.key.startsWith(k.prefix))!.id;
    expect(await callJson("DELETE", `/v1/keys/${ownerKeyId}`, { key: dev.key }))
      .toMatchObject({ status: 403, body: { error: "forbidden", message: "a developer may revoke only the API keys they made" } });
    expect((await callJson("DELETE", `/v1/keys/${made.body.id}`, { key: dev.key })).status).toBe(204);

    expect((await callJson("PATCH", `/v1/members/${dev.user_id}`, { key: owner.key, body: { role: "viewer" } })).status).toBe(200);
    expect(await callJson("POST", "/v1/volumes", { key: dev.key, body: { name: "nope", size_gb: 1 } }))
      .toMatchObject({ status: 403, body: { error: "forbidden", message: roleRefusalMessage(["owner", "admin", "developer"], "viewer") } });
    expect(await callJson("GET", "/v1/me", { key: dev.key })).toMatchObject({ status: 200, body: { account: { role: "viewer" } } });
  });

  it("the proxy's key set holds only the keys whose role may use instances, and a role change pushes a new set", async () => {
    const { id, owner } = await ownedAccount();
    const dev = await joined(id, owner.key, "developer");
    const viewer = await joined(id, owner.key, "viewer");
    const keySet = () => runInDurableObject(accountStub(id), (_, state) => currentKeySet(sqlFor(state.storage), id));
    const hash = async (key: string) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const before = await keySet();
    expect(before.hashes).toEqual([await hash(owner.key), await hash(dev.key)].sort());
    expect(before.hashes).not.toContain(await hash(viewer.key));

    expect((await callJson("PATCH", `/v1/members/${dev.user_id}`, { key: owner.key, body: { role: "billing" } })).status).toBe(200);
    expect((await callJson("PATCH", `/v1/members/${viewer.user_id}`, { key: owner.key, body: { role: "admin" } })).status).toBe(200);
    const after = await keySet();
    expect(after.hashes).toEqual([await hash(owner.key), await hash(viewer.key)].sort());
    expect(after.version).toBe(before.version + 2);
  });
});

describe("removing a member", () => {
  it("revokes the keys they made (Revoked-Keys) and ends their access at once: their keys are 401 and their person 403", async () => {
    const { id, owner } = await ownedAccount();
    const dev = await joined(id, owner.key, "developer");
    const second = await keyOf(id, dev);
    const removed = await callJson("DELETE", `/v1/members/${dev.user_id}`, { key: owner.key });
    expect(removed.status).toBe(204);
    expect(removed.headers.get("revoked-keys")).toBe("2");
    for (const key of [dev.key, second]) expect((await callJson("GET", "/v1/instances", { key })).status).toBe(401);
    expect(await accountStub(id).listInstances(personCredential(dev))).toMatchObject({ ok: false, code: "forbidden" });
    expect(await accountStub(id).membership(dev.user_id)).toBeNull();
    expect((await callJson<{ items: { user_id: string }[] }>("GET", "/v1/members", { key: owner.key })).body.items.map((m) => m.user_id)).toEqual([owner.user_id]);
    expect(await callJson("DELETE", `/v1/members/${dev.user_id}`, { key: owner.key })).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/keys", { key: owner.key })).body.items).toHaveLength(1);
  });

  it("of a member whose keys are revoked already: Revoked-Keys 0", async () => {
    const { id, owner } = await ownedAccount();
    const viewer = await joined(id, owner.key, "viewer");
    const keyId = (await callJson<{ items: { id: string; prefix: string }[] }>("GET", "/v1/keys", { key: owner.key })).body.items.find((k) => viewer.key.startsWith(k.prefix))!.id;
    expect((await callJson("DELETE", `/v1/keys/${keyId}`, { key: owner.key })).status).toBe(204);
    const removed = await callJson("DELETE", `/v1/members/${viewer.user_id}`, { key: owner.key });
    expect(removed.status).toBe(204);
    expect(removed.headers.get("revoked-keys")).toBe("0");
  });
});

describe("one person in two accounts", () => {
  it("sees neither account's instances, keys or ledger from the other", async () => {
    const agent = await FakeAgent.online("two-accounts", ["rtx4090"]);
    const a = await ownedAccount(50_000_000);
    const b = await ownedAccount(70_000_000);
    const person = newPerson("both");
    const inA = await joined(a.id, a.owner.key, "developer", person);
    const inB = await joined(b.id, b.owner.key, "admin", person);
    const instance = await launchOn(agent, inA.key);

    expect((await callJson<{ items: { id: string }[] }>("GET", "/v1/instances", { key: inA.key })).body.items.map((i) => i.id)).toEqual([instance]);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/instances", { key: inB.key })).body.items).toEqual([]);
    expect(await callJson("GET", `/v1/instances/${instance}`, { key: inB.key })).toMatchObject({ status: 404 });
    expect(await callJson("DELETE", `/v1/instances/${instance}`, { key: inB.key })).toMatchObject({ status: 404 });
    expect(await accountStub(b.id).getInstance(personCredential(person), instance)).toMatchObject({ ok: false, code: "not_found" });

    const keysOf = async (key: string) => (await callJson<{ items: { prefix: string }[] }>("GET", "/v1/keys", { key })).body.items.map((k) => k.prefix.split("_")[1]);
    expect(new Set(await keysOf(inA.key))).toEqual(new Set([a.id]));
    expect(new Set(await keysOf(inB.key))).toEqual(new Set([b.id]));
    const ledgerOf = async (key: string) => (await callJson<{ items: { amount_micros: number; kind: string }[] }>("GET", "/v1/billing/ledger", { key })).body.items;
    expect((await ledgerOf(inA.key)).filter((e) => e.kind === "credit").map((e) => e.amount_micros)).toEqual([50_000_000]);
    expect((await ledgerOf(inB.key)).map((e) => e.amount_micros)).toEqual([70_000_000]);

    // A's key is A's alone: it opens nothing of B's, even naming B's id (its account is in the key).
    expect(await accountStub(b.id).listInstances({ token: inA.key, may: ["developer"], needs: null, ip: null })).toMatchObject({ ok: false, code: "unauthorized" });
    expect(await accountStub(a.id).membership(person.user_id)).toMatchObject({ id: a.id, role: "developer" });
    expect(await accountStub(b.id).membership(person.user_id)).toMatchObject({ id: b.id, role: "admin" });
  });
});

describe("the account's name", () => {
  it("is its owner's email until PATCH /v1/account names it (trimmed); /v1/me and the member's listing show it", async () => {
    const { id, owner } = await ownedAccount();
    expect(await callJson("GET", "/v1/me", { key: owner.key })).toMatchObject({ body: { account: { name: owner.email, role: "owner" } } });
    const named = await callJson("PATCH", "/v1/account", { key: owner.key, body: { name: "  Acme research " } });
    expect(named).toMatchObject({ status: 200, body: { account: { id, name: "Acme research" } } });
    expect(await accountStub(id).membership(owner.user_id)).toEqual({ id, name: "Acme research", role: "owner" });
  });

  it("refuses an empty or longer than 64 characters name, and a body setting nothing, with 400 naming the rule, changing nothing", async () => {
    const { owner } = await ownedAccount();
    for (const name of ["   ", "n".repeat(65), 5]) {
      expect(await callJson("PATCH", "/v1/account", { key: owner.key, body: { name } }), String(name))
        .toMatchObject({ status: 400, body: { error: "invalid", message: "name: must be 1 to 64 characters" } });
    }
    expect(await callJson("PATCH", "/v1/account", { key: owner.key, body: {} }))
      .toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringContaining("must set name, low_balance_micros, monthly_budget_micros or budget_action") } });
    expect(await callJson("GET", "/v1/me", { key: owner.key })).toMatchObject({ body: { account: { name: owner.email } } });
  });
});
