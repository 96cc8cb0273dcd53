// The old-state migration: an account and an email as the code before teams wrote them (the account
// held the email's password hash and the sessions; the EmailDO's holder named the account alone), then
// opened by this code. Every session cookie of then still works, the password of then still signs in,
// the API keys still work; the person made from the account holds the login from then on.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionTokens } from "../../core/credentials.ts";
import { sha256Hex } from "../../core/hash.ts";
import { hashPassword } from "../../core/password-hash.ts";
import { createAccountSchema } from "../account/schema.ts";
import { createEmailSchema } from "../email/email-do.ts";
import { sqlFor } from "../sql.ts";
import { call, callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { asBrowser, PASSWORD, sessionCookie, uniqueEmail } from "../../test/support/workerd/session-client.ts";

const DAY_MS = 24 * 3_600_000;

interface OldAccount {
  id: string;
  email: string;
  key: string;
  /** Cookies of sessions made before teams: live ones, and one idle for 31 days. */
  sessions: string[];
  idle: string;
}

/** An account with a login as the code before teams left it, with its email's EmailDO; `sessions` live sessions. */
async function accountOfBeforeTeams(sessions = 2): Promise<OldAccount> {
  const { id, key } = await newAccount();
  const email = uniqueEmail("before-teams");
  const password = await hashPassword(PASSWORD);
  const tokens = Array.from({ length: sessions + 1 }, () => sessionTokens.issue(id));
  const hashes = await Promise.all(tokens.map((token) => sha256Hex(token)));
  await runInDurableObject(env.ACCOUNTS.getByName(id), (_, state) => {
    const sql = sqlFor(state.storage);
    // What teams added, taken away: its tables, and its columns on the account and its keys.
    sql`DROP TABLE members`;
    sql`DROP TABLE invitations`;
    sql`ALTER TABLE account DROP COLUMN name`;
    sql`ALTER TABLE api_keys DROP COLUMN created_by`;
    sql`UPDATE account SET email = ${email}`;
    sql`INSERT INTO password (algorithm, iterations, salt, hash, updated_at)
        VALUES (${password.algorithm}, ${password.iterations}, ${password.salt}, ${password.hash}, '2026-01-01T00:00:00.000Z')`;
    const now = Date.now();
    hashes.forEach((hash, i) => {
      const lastUsedMs = i === sessions ? now - 31 * DAY_MS : now - i * 60_000;
      sql`INSERT INTO sessions (id, hash, created_at, last_used_ms) VALUES (${`ses-oldsession${i}aa`}, ${hash}, ${new Date(now - 40 * DAY_MS).toISOString()}, ${lastUsedMs})`;
    });
    // The upgrade every constructor of this code runs.
    createAccountSchema(sql);
  });
  await runInDurableObject(env.EMAILS.getByName(email), (_, state) => {
    const sql = sqlFor(state.storage);
    sql`DROP TABLE holder`;
    sql`CREATE TABLE holder (email TEXT PRIMARY KEY, account_id TEXT NOT NULL, state TEXT NOT NULL, claimed_ms INTEGER NOT NULL)`;
    sql`INSERT INTO holder (email, account_id, state, claimed_ms) VALUES (${email}, ${id}, 'active', ${Date.now() - 40 * DAY_MS})`;
    createEmailSchema(sql);
  });
  return { id, email, key, sessions: tokens.slice(0, sessions), idle: tokens[sessions]! };
}

const loginRowsOf = (accountId: string) =>
  runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) => {
    const sql = sqlFor(state.storage);
    return { password: sql<{ n: number }>`SELECT COUNT(*) AS n FROM password`[0]!.n, sessions: sql<{ n: number }>`SELECT COUNT(*) AS n FROM sessions`[0]!.n };
  });

describe("an account of before teams", () => {
  it("its session cookies keep working, as its person's, who is the account's owner; the account forgets the login", async () => {
    const old = await accountOfBeforeTeams();
    const userId = `usr-${old.id.slice(4)}`;
    const me = await asBrowser("GET", "/v1/me", old.sessions[0]!);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      account: { id: old.id, email: old.email, name: old.email, role: "owner" },
      user: { id: userId, email: old.email },
      accounts: [{ id: old.id, name: old.email, role: "owner" }],
    });
    expect((await asBrowser("GET", "/v1/instances", old.sessions[1]!)).status).toBe(200);
    expect(await loginRowsOf(old.id)).toEqual({ password: 0, sessions: 0 });
    // A session that had ended then is still ended.
    expect((await asBrowser("GET", "/v1/me", old.idle)).status).toBe(401);
    // The old cookie changes things as before, and signs out as before.
    expect((await asBrowser("POST", "/v1/keys", old.sessions[1]!, { body: { name: "made by an old session" } })).status).toBe(201);
    expect((await call("POST", "/v1/auth/logout", { headers: { cookie: `gpr_session=${old.sessions[1]!}`, origin: "http://gpu.test" } })).status).toBe(204);
    expect((await asBrowser("GET", "/v1/me", old.sessions[1]!)).status).toBe(401);
    expect((await asBrowser("GET", "/v1/me", old.sessions[0]!)).status).toBe(200);
  });

  it("its password signs in, first thing, with a session of the person; its API key keeps working; sign-up with its email is still 409", async () => {
    const old = await accountOfBeforeTeams();
    const login = await call("POST", "/v1/auth/login", { body: { email: old.email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const session = sessionCookie(login)!;
    expect(session).toMatch(new RegExp(`^gps_usr-${old.id.slice(4)}_`));
    expect(await login.json()).toMatchObject({ account: { id: old.id, role: "owner" }, user: { id: `usr-${old.id.slice(4)}` } });
    expect((await asBrowser("GET", "/v1/me", session)).status).toBe(200);
    // The sessions of then were taken over with the password.
    expect((await asBrowser("GET", "/v1/me", old.sessions[0]!)).status).toBe(200);
    expect((await call("POST", "/v1/auth/login", { body: { email: old.email, password: "not the password at all" } })).status).toBe(401);

    const keyed = await callJson("GET", "/v1/me", { key: old.key });
    expect(keyed).toMatchObject({ status: 200, body: { account: { id: old.id, role: "owner" }, user: null, accounts: [{ id: old.id, role: "owner" }] } });
    expect((await callJson("POST", "/v1/auth/signup", { body: { email: old.email, password: PASSWORD } })).status).toBe(409);
  });

  it("a password change through an old cookie ends the other old sessions, and the new password signs in", async () => {
    const old = await accountOfBeforeTeams(3);
    const change = await asBrowser("POST", "/v1/auth/password", old.sessions[0]!, { body: { current_password: PASSWORD, new_password: "a new password after teams" } });
    expect(change.status).toBe(204);
    expect((await asBrowser("GET", "/v1/me", old.sessions[1]!)).status).toBe(401);
    expect((await asBrowser("GET", "/v1/me", old.sessions[2]!)).status).toBe(401);
    expect((await asBrowser("GET", "/v1/me", old.sessions[0]!)).status).toBe(200);
    expect((await call("POST", "/v1/auth/login", { body: { email: old.email, password: "a new password after teams" } })).status).toBe(200);
  });

  it("an account the operator made without a login has no person: a session cookie naming it is 401", async () => {
    const { id, key } = await newAccount();
    const forged = sessionTokens.issue(id);
    expect((await asBrowser("GET", "/v1/me", forged)).status).toBe(401);
    expect((await callJson("GET", "/v1/me", { key })).status).toBe(200);
  });
});
