// The EmailDO's failure cases: a claim left pending (its account creation failed, or nobody heard
// how it ended) is settled by asking the account, never left pointing at nothing.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../../test/support/workerd/api-client.ts";
import { PASSWORD, signIn, signUp, uniqueEmail } from "../../test/support/workerd/session-client.ts";
import { PENDING_MS } from "./email-do.ts";

const holderOf = (email: string) =>
  runInDurableObject(env.EMAILS.getByName(email), (_, state) =>
    state.storage.sql.exec<{ account_id: string; state: string }>("SELECT account_id, state FROM holder").toArray());

/** Leaves a pending claim for `accountId`, as a sign-up interrupted after claiming would. */
function leavePendingClaim(email: string, accountId: string, claimedMs: number): Promise<void> {
  return runInDurableObject(env.EMAILS.getByName(email), async (_, state) => {
    state.storage.sql.exec("INSERT INTO holder (email, account_id, state, claimed_ms) VALUES (?, ?, 'pending', ?)", email, accountId, claimedMs);
    // Far ahead, so it fires only when the test runs it.
    await state.storage.setAlarm(Date.now() + 3_600_000);
  });
}

const accountRows = (accountId: string) =>
  runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
    state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM account").one().n);

describe("EmailDO", () => {
  it("a claim whose account was never created is released by the alarm, and that account can never be created later", async () => {
    const email = uniqueEmail("lost");
    const orphan = "acc-orphanorphanorph";
    await leavePendingClaim(email, orphan, Date.now() - PENDING_MS);
    expect((await call("POST", "/v1/auth/login", { body: { email, password: PASSWORD } })).status).toBe(401);

    expect(await runDurableObjectAlarm(env.EMAILS.getByName(email))).toBe(true);
    expect(await holderOf(email)).toEqual([]);
    const late = await env.ACCOUNTS.getByName(orphan).createWithLogin({ accountId: orphan, email, password: PASSWORD, creditMicros: 0 });
    expect(late).toEqual({ ok: false, code: "conflict", message: "this account cannot be created" });
    expect(await accountRows(orphan)).toBe(0);

    const account = await signUp(email);
    expect(await holderOf(email)).toEqual([{ account_id: account.id, state: "active" }]);
  });

  it("a claim whose account was created but never confirmed is made active by the alarm", async () => {
    const email = uniqueEmail("unconfirmed");
    const accountId = "acc-unconfirmeduncon";
    const created = await env.ACCOUNTS.getByName(accountId).createWithLogin({ accountId, email, password: PASSWORD, creditMicros: 0 });
    expect(created.ok).toBe(true);
    await leavePendingClaim(email, accountId, Date.now() - PENDING_MS);

    await runDurableObjectAlarm(env.EMAILS.getByName(email));
    expect(await holderOf(email)).toEqual([{ account_id: accountId, state: "active" }]);
    await signIn(email, PASSWORD);
    expect((await call("POST", "/v1/auth/signup", { body: { email, password: PASSWORD } })).status).toBe(409);
  });

  it("a sign-up that finds a stale pending claim settles it first, without waiting for the alarm", async () => {
    const email = uniqueEmail("stale");
    await leavePendingClaim(email, "acc-stalestalestales", Date.now() - PENDING_MS);
    const account = await signUp(email);
    expect(await holderOf(email)).toEqual([{ account_id: account.id, state: "active" }]);
  });

  it("a sign-up while another is in flight (a fresh pending claim) is 409, and the alarm leaves it alone until it is due", async () => {
    const email = uniqueEmail("inflight");
    await leavePendingClaim(email, "acc-inflightinflight", Date.now());
    const { status } = await call("POST", "/v1/auth/signup", { body: { email, password: PASSWORD } });
    expect(status).toBe(409);
    await runDurableObjectAlarm(env.EMAILS.getByName(email));
    expect(await holderOf(email)).toEqual([{ account_id: "acc-inflightinflight", state: "pending" }]);
  });
});
