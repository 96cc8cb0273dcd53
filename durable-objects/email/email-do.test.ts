// The EmailDO's failure cases: a claim left pending (its person's making failed, or nobody heard how it
// ended) is settled by asking the person, never left pointing at nothing; a claim of before teams (no
// person named) is settled by asking its account, as it was.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../../test/support/workerd/api-client.ts";
import { PASSWORD, signIn, signUp, uniqueEmail } from "../../test/support/workerd/session-client.ts";
import { PENDING_MS } from "./email-do.ts";

const holderOf = (email: string) =>
  runInDurableObject(env.EMAILS.getByName(email), (_, state) =>
    state.storage.sql.exec<{ account_id: string; user_id: string | null; state: string }>("SELECT account_id, user_id, state FROM holder").toArray());

/** Leaves a pending claim for `userId` (null: a claim of before teams, naming its account alone), as a sign-up interrupted after claiming would. */
function leavePendingClaim(email: string, accountId: string, userId: string | null, claimedMs: number): Promise<void> {
  return runInDurableObject(env.EMAILS.getByName(email), async (_, state) => {
    state.storage.sql.exec("INSERT INTO holder (email, account_id, user_id, state, claimed_ms) VALUES (?, ?, ?, 'pending', ?)", email, accountId, userId, claimedMs);
    // Far ahead, so it fires only when the test runs it.
    await state.storage.setAlarm(Date.now() + 3_600_000);
  });
}

const rowsOf = (stub: DurableObjectStub, table: string) =>
  runInDurableObject(stub, (_, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n);

describe("EmailDO", () => {
  it("a claim whose person was never made is released by the alarm, and that person can never be made later", async () => {
    const email = uniqueEmail("lost");
    const orphan = "usr-orphanorphanorph";
    await leavePendingClaim(email, "acc-orphanorphanorph", orphan, Date.now() - PENDING_MS);
    expect((await call("POST", "/v1/auth/login", { body: { email, password: PASSWORD } })).status).toBe(401);

    expect(await runDurableObjectAlarm(env.EMAILS.getByName(email))).toBe(true);
    expect(await holderOf(email)).toEqual([]);
    const late = await env.PERSONS.getByName(orphan).createPerson({ user_id: orphan, email, password: PASSWORD, account_id: "acc-orphanorphanorph" });
    expect(late).toEqual({ ok: false, code: "conflict", message: "this person cannot be created" });
    expect(await rowsOf(env.PERSONS.getByName(orphan), "person")).toBe(0);

    const account = await signUp(email);
    expect(await holderOf(email)).toEqual([{ account_id: account.id, user_id: expect.stringMatching(/^usr-[a-z2-7]{16}$/), state: "active" }]);
  });

  it("a claim whose person was made but never confirmed is made active by the alarm", async () => {
    const email = uniqueEmail("unconfirmed");
    const accountId = "acc-unconfirmeduncon";
    const userId = "usr-unconfirmeduncon";
    expect(await env.ACCOUNTS.getByName(accountId).createForOwner({ accountId, user_id: userId, email, creditMicros: 0 })).toMatchObject({ ok: true });
    expect(await env.PERSONS.getByName(userId).createPerson({ user_id: userId, email, password: PASSWORD, account_id: accountId })).toMatchObject({ ok: true });
    await leavePendingClaim(email, accountId, userId, Date.now() - PENDING_MS);

    await runDurableObjectAlarm(env.EMAILS.getByName(email));
    expect(await holderOf(email)).toEqual([{ account_id: accountId, user_id: userId, state: "active" }]);
    await signIn(email, PASSWORD);
    expect((await call("POST", "/v1/auth/signup", { body: { email, password: PASSWORD } })).status).toBe(409);
  });

  it("a claim of before teams (no person named) is settled by asking its account, which is then never created", async () => {
    const email = uniqueEmail("legacy-pending");
    const orphan = "acc-legacypendinglega";
    await leavePendingClaim(email, orphan, null, Date.now() - PENDING_MS);
    await runDurableObjectAlarm(env.EMAILS.getByName(email));
    expect(await holderOf(email)).toEqual([]);
    expect(await rowsOf(env.ACCOUNTS.getByName(orphan), "abandoned_signup")).toBe(1);
    const late = await env.ACCOUNTS.getByName(orphan).createForOwner({ accountId: orphan, user_id: "usr-legacypendinglega", email, creditMicros: 0 });
    expect(late).toMatchObject({ ok: false, code: "conflict" });
  });

  it("a sign-up that finds a stale pending claim settles it first, without waiting for the alarm", async () => {
    const email = uniqueEmail("stale");
    await leavePendingClaim(email, "acc-stalestalestales", "usr-stalestalestales", Date.now() - PENDING_MS);
    const account = await signUp(email);
    expect(await holderOf(email)).toEqual([{ account_id: account.id, user_id: expect.stringMatching(/^usr-/), state: "active" }]);
  });

  it("a sign-up while another is in flight (a fresh pending claim) is 409, and the alarm leaves it alone until it is due", async () => {
    const email = uniqueEmail("inflight");
    await leavePendingClaim(email, "acc-inflightinflight", "usr-inflightinflight", Date.now());
    const { status } = await call("POST", "/v1/auth/signup", { body: { email, password: PASSWORD } });
    expect(status).toBe(409);
    await runDurableObjectAlarm(env.EMAILS.getByName(email));
    expect(await holderOf(email)).toEqual([{ account_id: "acc-inflightinflight", user_id: "usr-inflightinflight", state: "pending" }]);
  });
});
