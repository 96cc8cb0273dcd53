// Joining and moving between accounts: POST /v1/auth/accept-invitation (a new person sets a password,
// a signed-in person with the invitation's email joins, anyone else is refused and the invitation stays
// unused) and POST /v1/auth/switch (a member's accounts only, from a signed-in browser).
import { describe, expect, it } from "vitest";
import { BASE, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { asBrowser, browser, PASSWORD, sessionCookie, signIn, signUp, uniqueEmail, type SignedUp } from "../../../test/support/workerd/session-client.ts";

/** `owner` invites `email` as `role`; the invitation's token (the link's fragment). */
async function invite(owner: SignedUp, email: string, role = "developer"): Promise<string> {
  const { status, body } = await asBrowser("POST", "/v1/members/invitations", owner.session, { body: { email, role } });
  expect(status).toBe(201);
  return new URL(body.url as string).hash.slice(1);
}

const accept = (body: unknown, session: string | null = null, origin: string | null = BASE) =>
  call("POST", "/v1/auth/accept-invitation", { body, headers: session ? browser(session, origin) : origin ? { origin } : {} });

describe("POST /v1/auth/accept-invitation", () => {
  it("a new person sets a password: 200 the /me shape of the account joined, with the invitation's role, and a session; the link then is used up", async () => {
    const owner = await signUp();
    const email = uniqueEmail("newcomer");
    const token = await invite(owner, email, "billing");

    const missing = await accept({ token });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "invalid", message: expect.stringMatching(/^password: /) });
    const short = await accept({ token, password: "short" });
    expect(await short.json()).toEqual({ error: "invalid", message: expect.stringMatching(/^password: /) });

    const joined = await accept({ token, password: PASSWORD });
    expect(joined.status).toBe(200);
    const session = sessionCookie(joined)!;
    expect(session).toMatch(/^gps_usr-[a-z2-7]{16}_[a-z2-7]{32}$/);
    const body = (await joined.json()) as { user: { id: string } };
    expect(body).toMatchObject({
      account: { id: owner.id, role: "billing" },
      user: { id: expect.stringMatching(/^usr-/), email },
      accounts: [{ id: owner.id, role: "billing" }],
    });
    expect((await asBrowser("GET", "/v1/me", session)).body).toEqual(body);
    await signIn(email, PASSWORD);

    const again = await accept({ token, password: PASSWORD });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: "not_found", message: expect.stringContaining("not valid") });
  });

  it("a signed-in person with the invitation's email joins, and the session acts on the account joined; the switch takes them back", async () => {
    const owner = await signUp();
    const colleague = await signUp();
    const token = await invite(owner, colleague.email, "viewer");
    const joined = await accept({ token }, colleague.session);
    expect(joined.status).toBe(200);
    expect(await joined.json()).toMatchObject({
      account: { id: owner.id, role: "viewer" },
      user: { id: colleague.userId, email: colleague.email },
      accounts: expect.arrayContaining([{ id: owner.id, name: owner.email, role: "viewer" }, { id: colleague.id, name: colleague.email, role: "owner" }]),
    });
    expect((await asBrowser("GET", "/v1/me", colleague.session)).body).toMatchObject({ account: { id: owner.id, role: "viewer" } });
    // The viewer's session cannot change the account it acts on now; its own account is one switch away.
    expect((await asBrowser("POST", "/v1/keys", colleague.session, { body: { name: "x" } })).status).toBe(403);
    const back = await asBrowser("POST", "/v1/auth/switch", colleague.session, { body: { account_id: colleague.id } });
    expect(back).toMatchObject({ status: 200, body: { account: { id: colleague.id, role: "owner" } } });
    expect((await asBrowser("POST", "/v1/keys", colleague.session, { body: { name: "x" } })).status).toBe(201);
    // Signing in again lands on the account last used.
    const later = await signIn(colleague.email, PASSWORD);
    expect((await asBrowser("GET", "/v1/me", later)).body).toMatchObject({ account: { id: colleague.id } });
  });

  it("a person with that email who is not signed in is 409 'sign in as <email>', and the invitation stays for them", async () => {
    const owner = await signUp();
    const colleague = await signUp();
    const token = await invite(owner, colleague.email);
    for (const body of [{ token }, { token, password: "an attempt at a new password" }]) {
      const refused = await accept(body);
      expect(refused.status).toBe(409);
      expect(await refused.json()).toEqual({ error: "conflict", message: `sign in as ${colleague.email}, then open the link again` });
      expect(sessionCookie(refused)).toBeNull();
    }
    // Their password is unchanged, and the link still works once they sign in.
    const session = await signIn(colleague.email, PASSWORD);
    expect((await accept({ token }, session)).status).toBe(200);
  });

  it("signed in with another email is 403 forbidden, and the invitation stays unused", async () => {
    const owner = await signUp();
    const stranger = await signUp();
    const email = uniqueEmail("invited");
    const token = await invite(owner, email);
    const refused = await accept({ token, password: PASSWORD }, stranger.session);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "forbidden", message: expect.stringContaining("another email") });
    expect((await asBrowser("GET", "/v1/me", stranger.session)).body).toMatchObject({ account: { id: stranger.id }, accounts: [{ id: stranger.id }] });
    expect((await accept({ token, password: PASSWORD })).status).toBe(200);
  });

  it("a token that is not one is 400 naming token; one of no live invitation is 404; another site's page is 403", async () => {
    const owner = await signUp();
    const malformed = await callJson("POST", "/v1/auth/accept-invitation", { body: { token: "gpv_nope", password: PASSWORD } });
    expect(malformed).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^token: /) } });
    const unknown = `gpv_${owner.id}_${"a".repeat(32)}`;
    expect((await accept({ token: unknown, password: PASSWORD })).status).toBe(404);
    const ofNoAccount = `gpv_acc-${"b".repeat(16)}_${"a".repeat(32)}`;
    expect((await accept({ token: ofNoAccount, password: PASSWORD })).status).toBe(404);
    const token = await invite(owner, uniqueEmail());
    expect((await accept({ token, password: PASSWORD }, null, "https://evil.example")).status).toBe(403);
    expect((await accept({ token, password: PASSWORD })).status).toBe(200);
  });
});

describe("POST /v1/auth/switch", () => {
  it("to an account the person is no member of is 403 forbidden, and the session stays where it was", async () => {
    const person = await signUp();
    const other = await signUp();
    const refused = await asBrowser("POST", "/v1/auth/switch", person.session, { body: { account_id: other.id } });
    expect(refused).toMatchObject({ status: 403, body: { error: "forbidden", message: expect.stringContaining(other.id) } });
    const unknown = await asBrowser("POST", "/v1/auth/switch", person.session, { body: { account_id: `acc-${"c".repeat(16)}` } });
    expect(unknown.status).toBe(403);
    expect((await asBrowser("GET", "/v1/me", person.session)).body).toMatchObject({ account: { id: person.id } });
  });

  it("needs the session cookie from this service's pages: an API key or an ended session is 401, another Origin 403, a malformed id 400", async () => {
    const person = await signUp();
    const { key } = await newAccount();
    expect((await callJson("POST", "/v1/auth/switch", { key, body: { account_id: person.id } })).status).toBe(401);
    expect((await asBrowser("POST", "/v1/auth/switch", person.session, { origin: "https://evil.example", body: { account_id: person.id } })).status).toBe(403);
    expect((await asBrowser("POST", "/v1/auth/switch", person.session, { body: { account_id: "mine" } })).body)
      .toEqual({ error: "invalid", message: expect.stringMatching(/^account_id: /) });
    await call("POST", "/v1/auth/logout", { headers: browser(person.session) });
    expect((await asBrowser("POST", "/v1/auth/switch", person.session, { body: { account_id: person.id } })).status).toBe(401);
  });

  it("a person removed from the account their session acts on is moved to another of theirs", async () => {
    const owner = await signUp();
    const colleague = await signUp();
    await accept({ token: await invite(owner, colleague.email) }, colleague.session);
    expect((await asBrowser("DELETE", `/v1/members/${colleague.userId}`, owner.session)).status).toBe(204);
    const me = await asBrowser("GET", "/v1/me", colleague.session);
    expect(me).toMatchObject({ status: 200, body: { account: { id: colleague.id }, accounts: [{ id: colleague.id }] } });
    expect((await asBrowser("POST", "/v1/auth/switch", colleague.session, { body: { account_id: owner.id } })).status).toBe(403);
  });

  it("a person removed from their only account belongs to none: their session and a new sign-in are 403 forbidden until invited again", async () => {
    const owner = await signUp();
    const email = uniqueEmail("only-account");
    const joined = await accept({ token: await invite(owner, email), password: PASSWORD });
    const session = sessionCookie(joined)!;
    const { user } = (await joined.json()) as { user: { id: string } };
    expect((await asBrowser("DELETE", `/v1/members/${user.id}`, owner.session)).status).toBe(204);
    expect(await asBrowser("GET", "/v1/me", session)).toMatchObject({ status: 403, body: { error: "forbidden", message: expect.stringContaining("no account") } });
    const login = await call("POST", "/v1/auth/login", { body: { email, password: PASSWORD } });
    expect(login.status).toBe(403);
    expect(sessionCookie(login)).toBeNull();
    expect((await accept({ token: await invite(owner, email) }, session)).status).toBe(200);
    expect((await asBrowser("GET", "/v1/me", session)).body).toMatchObject({ account: { id: owner.id }, accounts: [{ id: owner.id }] });
  });
});
