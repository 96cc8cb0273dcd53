import { env } from "cloudflare:workers";
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../main.ts";
import { BASE, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { auditLedger } from "../../../test/support/workerd/ledger-audit.ts";
import { asBrowser, browser, PASSWORD, sessionCookie, signIn, signUp, uniqueEmail } from "../../../test/support/workerd/session-client.ts";
import { PASSWORD_ITERATIONS } from "../../../core/password-hash.ts";
import type { Env } from "../../../core/env.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WRONG_LOGIN = { error: "unauthorized", message: "email or password is wrong" };

const fetchWith = (vars: Partial<Env>, request: Request) => worker.fetch(request, { ...env, ...vars }, createExecutionContext());
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(BASE + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("POST /v1/auth/signup", () => {
  it("creates the account, answers the /me shape with the email trimmed and lower-cased, and signs in", async () => {
    const email = uniqueEmail("ada");
    const response = await call("POST", "/v1/auth/signup", { body: { email: `  ${email.toUpperCase()} `, password: PASSWORD } });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { account: Record<string, unknown>; balance_micros: number; user: { id: string } };
    const id = expect.stringMatching(/^acc-[a-z2-7]{16}$/);
    expect(body).toEqual({
      account: {
        id, name: email, referral_code: expect.stringMatching(/^[A-Z2-7]{8}$/), created_at: expect.stringMatching(ISO), email,
        low_balance_micros: 5_000_000, role: "owner", monthly_budget_micros: null, budget_action: "notify",
      },
      balance_micros: 0,
      month_spend_micros: 0,
      user: { id: expect.stringMatching(/^usr-[a-z2-7]{16}$/), email },
      accounts: [{ id: body.account.id, name: email, role: "owner" }],
    });
    // The session names the person, whose object checks it; the person is not the account.
    const session = sessionCookie(response)!;
    expect(session).toMatch(new RegExp(`^gps_${body.user.id}_[a-z2-7]{32}$`));
    expect(body.user.id.slice(4)).not.toBe((body.account.id as string).slice(4));
    const me = await asBrowser("GET", "/v1/me", session);
    expect(me).toMatchObject({ status: 200, body });
  });

  it("sets gpr_session HttpOnly, SameSite=Lax, Path=/, for 30 days, Secure except on http://localhost and 127.0.0.1", async () => {
    const cookieOf = async (base: string) => {
      const response = await call("POST", "/v1/auth/signup", { base, body: { email: uniqueEmail(), password: PASSWORD } });
      expect(response.status).toBe(201);
      return response.headers.getSetCookie().find((c) => c.startsWith("gpr_session="))!.split("; ").slice(1).sort();
    };
    const local = ["HttpOnly", "Max-Age=2592000", "Path=/", "SameSite=Lax"];
    expect(await cookieOf("https://api.example.com")).toEqual([...local, "Secure"].sort());
    expect(await cookieOf("http://gpu.test")).toEqual([...local, "Secure"].sort());
    expect(await cookieOf("http://localhost:8787")).toEqual(local);
    expect(await cookieOf("http://127.0.0.1:8787")).toEqual(local);
  });

  it.each([
    ["not an address", "ada.example.com"],
    ["no domain", "ada@"],
    ["spaces inside", "ada lovelace@example.com"],
    ["empty", ""],
    ["over 254 characters", `${"a".repeat(250)}@example.com`],
    ["not a string", 42],
  ])("an email that is %s is 400 invalid naming email", async (_, email) => {
    const { status, body } = await callJson("POST", "/v1/auth/signup", { body: { email, password: PASSWORD } });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: expect.stringMatching(/^email: /) });
  });

  it("a missing email is 400 invalid naming email", async () => {
    const { status, body } = await callJson("POST", "/v1/auth/signup", { body: { password: PASSWORD } });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: "email: is required" });
  });

  it.each([
    ["11 characters", "a".repeat(11)],
    ["129 characters", "a".repeat(129)],
    ["missing", undefined],
    ["not a string", 123456789012],
  ])("a password of %s is 400 invalid naming password, and no account is made", async (_, password) => {
    const email = uniqueEmail();
    const { status, body } = await callJson("POST", "/v1/auth/signup", { body: { email, password } });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: expect.stringMatching(/^password: /) });
    expect((await call("POST", "/v1/auth/signup", { body: { email, password: PASSWORD } })).status).toBe(201);
  });

  it("passwords of exactly 12 and 128 characters are accepted, counted in characters not bytes", async () => {
    for (const password of ["a".repeat(12), "a".repeat(128), "🔑".repeat(12)]) {
      const { status } = await callJson("POST", "/v1/auth/signup", { body: { email: uniqueEmail(), password } });
      expect(status).toBe(201);
    }
  });

  it("a body that is not a JSON object is 400 bad_request; an unknown field is 400 invalid", async () => {
    expect((await callJson("POST", "/v1/auth/signup", { rawBody: "{", headers: { "content-type": "application/json" } })).body.error).toBe("bad_request");
    expect((await callJson("POST", "/v1/auth/signup", { rawBody: "email=a", headers: { "content-type": "application/x-www-form-urlencoded" } })).body.error).toBe("bad_request");
    const extra = await callJson("POST", "/v1/auth/signup", { body: { email: uniqueEmail(), password: PASSWORD, admin: true } });
    expect(extra).toMatchObject({ status: 400, body: { error: "invalid", message: "admin: unknown field" } });
  });

  it("an email already taken is 409 conflict, however it is written", async () => {
    const { email } = await signUp();
    for (const again of [email, ` ${email.toUpperCase()}`]) {
      const { status, body } = await callJson("POST", "/v1/auth/signup", { body: { email: again, password: "another password!" } });
      expect(status).toBe(409);
      expect(body).toEqual({ error: "conflict", message: "an account with this email already exists" });
    }
  });

  it("20 simultaneous sign-ups with one email: exactly one 201, the others 409, one account holds it", async () => {
    const email = uniqueEmail("race");
    const passwords = Array.from({ length: 20 }, (_, i) => `race password number ${i}`);
    const responses = await Promise.all(passwords.map((password) => call("POST", "/v1/auth/signup", { body: { email, password } })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = statuses.indexOf(201);
    const account = ((await responses[winner]!.json()) as { account: { id: string } }).account.id;
    const holder = await runInDurableObject(env.EMAILS.getByName(email), (_, state) =>
      state.storage.sql.exec<{ account_id: string; state: string }>("SELECT account_id, state FROM holder").toArray());
    expect(holder).toEqual([{ account_id: account, state: "active" }]);
    for (const [i, password] of passwords.entries()) {
      const login = await call("POST", "/v1/auth/login", { body: { email, password } });
      expect(login.status).toBe(i === winner ? 200 : 401);
    }
  });

  it("SIGNUP_CREDIT_MICROS is credited through the ledger like any credit", async () => {
    const response = await fetchWith({ SIGNUP_CREDIT_MICROS: "5000000" }, post("/v1/auth/signup", { email: uniqueEmail(), password: PASSWORD }));
    expect(response.status).toBe(201);
    const body = (await response.json()) as { account: { id: string }; balance_micros: number };
    expect(body.balance_micros).toBe(5_000_000);
    const ledger = await asBrowser("GET", "/v1/billing/ledger", sessionCookie(response)!);
    expect((ledger.body as { items: unknown[] }).items).toEqual([
      { id: expect.any(Number), created_at: expect.stringMatching(ISO), kind: "credit", amount_micros: 5_000_000, balance_after_micros: 5_000_000, instance_id: null, volume_id: null, note: "sign-up credit", pending: false },
    ]);
    expect(await auditLedger(body.account.id)).toEqual({ balance_micros: 5_000_000, ledger_sum_micros: 5_000_000, ledger_rows: 1 });
  });

  it("a browser sign-up from another site's page is 403 forbidden; from this site it is allowed", async () => {
    const foreign = await callJson("POST", "/v1/auth/signup", { body: { email: uniqueEmail(), password: PASSWORD }, headers: { origin: "https://evil.example" } });
    expect(foreign).toMatchObject({ status: 403, body: { error: "forbidden", message: expect.stringContaining("https://evil.example") } });
    const own = await callJson("POST", "/v1/auth/signup", { body: { email: uniqueEmail(), password: PASSWORD }, headers: { origin: BASE } });
    expect(own.status).toBe(201);
  });
});

describe("POST /v1/auth/login", () => {
  it("the right password answers the /me shape and a new session", async () => {
    const account = await signUp();
    const response = await call("POST", "/v1/auth/login", { body: { email: account.email.toUpperCase(), password: account.password } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      account: {
        id: account.id, name: account.email, referral_code: expect.any(String), created_at: expect.stringMatching(ISO), email: account.email,
        low_balance_micros: 5_000_000, role: "owner", monthly_budget_micros: null, budget_action: "notify",
      },
      balance_micros: 0,
      month_spend_micros: 0,
      user: { id: expect.stringMatching(/^usr-/), email: account.email },
      accounts: [{ id: account.id, name: account.email, role: "owner" }],
    });
    const session = sessionCookie(response)!;
    expect(session).not.toBe(account.session);
    expect((await asBrowser("GET", "/v1/me", session)).status).toBe(200);
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(200);
  });

  it("a wrong password and an unknown email get the same 401 answer and no cookie", async () => {
    const account = await signUp();
    const wrong = await call("POST", "/v1/auth/login", { body: { email: account.email, password: "not the password at all" } });
    const unknown = await call("POST", "/v1/auth/login", { body: { email: uniqueEmail("nobody"), password: account.password } });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(WRONG_LOGIN);
      expect(sessionCookie(response)).toBeNull();
    }
  });

  it("an account the operator made has no email to sign in with", async () => {
    const { id } = await newAccount();
    const { status, body } = await callJson("POST", "/v1/auth/login", { body: { email: `${id}@example.com`, password: PASSWORD } });
    expect(status).toBe(401);
    expect(body).toEqual(WRONG_LOGIN);
  });

  it("a malformed email or password is 400 invalid, never a sign-in attempt", async () => {
    expect((await callJson("POST", "/v1/auth/login", { body: { email: "x", password: PASSWORD } })).body).toEqual({ error: "invalid", message: expect.stringMatching(/^email: /) });
    expect((await callJson("POST", "/v1/auth/login", { body: { email: uniqueEmail(), password: "short" } })).body).toEqual({ error: "invalid", message: expect.stringMatching(/^password: /) });
  });

  it("a hash made with fewer iterations is re-made with today's at the next sign-in", async () => {
    const account = await signUp();
    const stub = env.PERSONS.getByName(account.userId);
    // What an older release would have stored: the same password at 1,000 iterations.
    await runInDurableObject(stub, async (_, state) => {
      const salt = crypto.getRandomValues(new Uint8Array(16));
      const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(account.password), "PBKDF2", false, ["deriveBits"]);
      const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 1_000 }, key, 256);
      const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
      state.storage.sql.exec("UPDATE password SET iterations = 1000, salt = ?, hash = ?", hex(salt), hex(new Uint8Array(bits)));
    });
    const stored = () => runInDurableObject(stub, (_, state) =>
      state.storage.sql.exec<{ algorithm: string; iterations: number; salt: string }>("SELECT algorithm, iterations, salt FROM password").one());
    const before = await stored();
    await signIn(account.email, account.password);
    const after = await stored();
    expect(after).toEqual({ algorithm: "PBKDF2-SHA256", iterations: PASSWORD_ITERATIONS, salt: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(after.salt).not.toBe(before.salt);
    await signIn(account.email, account.password);
    expect((await call("POST", "/v1/auth/login", { body: { email: account.email, password: "not the password at all" } })).status).toBe(401);
  });
});

describe("POST /v1/auth/logout", () => {
  it("ends the session on the server, so its very next request is 401, and clears the cookie", async () => {
    const { session } = await signUp();
    const response = await call("POST", "/v1/auth/logout", { headers: browser(session) });
    expect(response.status).toBe(204);
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith("gpr_session="))!;
    expect(cleared).toMatch(/^gpr_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const after = await asBrowser("GET", "/v1/me", session);
    expect(after).toMatchObject({ status: 401, body: { error: "unauthorized" } });
  });

  it("ends only that session", async () => {
    const account = await signUp();
    const other = await signIn(account.email, account.password);
    expect((await call("POST", "/v1/auth/logout", { headers: browser(account.session) })).status).toBe(204);
    expect((await asBrowser("GET", "/v1/me", other)).status).toBe(200);
  });

  it("without a session it only clears the cookie", async () => {
    const response = await call("POST", "/v1/auth/logout");
    expect(response.status).toBe(204);
    expect(response.headers.getSetCookie()).toEqual([expect.stringMatching(/^gpr_session=; Max-Age=0/)]);
  });

  it.each([["no Origin", null], ["another site's Origin", "https://evil.example"]])(
    "with the cookie and %s it is 403 forbidden and the session lives on",
    async (_, origin) => {
      const { session } = await signUp();
      const { status, body } = await callJson("POST", "/v1/auth/logout", { headers: browser(session, origin) });
      expect(status).toBe(403);
      expect(body).toEqual({ error: "forbidden", message: expect.stringContaining("Origin") });
      expect((await asBrowser("GET", "/v1/me", session)).status).toBe(200);
    },
  );
});

describe("POST /v1/auth/password", () => {
  const change = (session: string, body: unknown, origin: string | null = BASE) =>
    callJson("POST", "/v1/auth/password", { body, headers: browser(session, origin) });

  it("changes the password and ends every other session of the account; this one stays", async () => {
    const account = await signUp();
    const laptop = await signIn(account.email, account.password);
    const phone = await signIn(account.email, account.password);
    const other = await signUp();
    const changed = await change(account.session, { current_password: account.password, new_password: "a brand new password" });
    expect(changed).toEqual({ status: 204, headers: expect.anything(), body: null });
    expect((await asBrowser("GET", "/v1/me", laptop)).status).toBe(401);
    expect((await asBrowser("GET", "/v1/me", phone)).status).toBe(401);
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(200);
    expect((await asBrowser("GET", "/v1/me", other.session)).status).toBe(200);
    expect((await call("POST", "/v1/auth/login", { body: { email: account.email, password: account.password } })).status).toBe(401);
    await signIn(account.email, "a brand new password");
  });

  it("API keys keep working after a password change", async () => {
    const account = await signUp();
    const created = await asBrowser("POST", "/v1/keys", account.session, { body: { name: "ci" } });
    await change(account.session, { current_password: account.password, new_password: "a brand new password" });
    expect((await callJson("GET", "/v1/me", { key: created.body.key as string })).status).toBe(200);
  });

  it("a wrong current password is 400 invalid naming current_password, and nothing changes", async () => {
    const account = await signUp();
    const other = await signIn(account.email, account.password);
    const { status, body } = await change(account.session, { current_password: "not the password at all", new_password: "a brand new password" });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: "current_password: is not the account's password" });
    expect((await asBrowser("GET", "/v1/me", other)).status).toBe(200);
    await signIn(account.email, account.password);
  });

  it.each([["11 characters", "a".repeat(11)], ["129 characters", "a".repeat(129)]])(
    "a new password of %s is 400 invalid naming new_password",
    async (_, newPassword) => {
      const account = await signUp();
      const { status, body } = await change(account.session, { current_password: account.password, new_password: newPassword });
      expect(status).toBe(400);
      expect(body).toEqual({ error: "invalid", message: expect.stringMatching(/^new_password: /) });
    },
  );

  it("needs a session: an API key or no credential is 401", async () => {
    const { key } = await newAccount();
    const body = { current_password: PASSWORD, new_password: "a brand new password" };
    expect((await callJson("POST", "/v1/auth/password", { key, body })).body).toEqual({ error: "unauthorized", message: expect.stringContaining("session") });
    expect((await callJson("POST", "/v1/auth/password", { body })).status).toBe(401);
  });

  it("a session that ended is 401", async () => {
    const account = await signUp();
    await call("POST", "/v1/auth/logout", { headers: browser(account.session) });
    const { status } = await change(account.session, { current_password: account.password, new_password: "a brand new password" });
    expect(status).toBe(401);
    await signIn(account.email, account.password);
  });

  it.each([["no Origin", null], ["another site's Origin", "https://evil.example"]])(
    "with %s it is 403 forbidden and the password stays",
    async (_, origin) => {
      const account = await signUp();
      const { status, body } = await change(account.session, { current_password: account.password, new_password: "a brand new password" }, origin);
      expect(status).toBe(403);
      expect(body.error).toBe("forbidden");
      await signIn(account.email, account.password);
    },
  );
});

describe("auth budget (AUTH_RATE_LIMIT_PER_MIN)", () => {
  const limited = { AUTH_RATE_LIMIT_PER_MIN: "10" };

  it("per client IP: the 11th attempt within a minute is 429 rate_limited with Retry-After; another IP is not limited", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const response = await fetchWith(limited, post("/v1/auth/login", { email: uniqueEmail(), password: PASSWORD }, { "cf-connecting-ip": "198.51.100.7" }));
      statuses.push(response.status);
      if (i === 10) {
        expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
        expect(await response.json()).toEqual({ error: "rate_limited", message: expect.stringContaining("10") });
      }
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const elsewhere = await fetchWith(limited, post("/v1/auth/login", { email: uniqueEmail(), password: PASSWORD }, { "cf-connecting-ip": "198.51.100.8" }));
    expect(elsewhere.status).toBe(401);
  });

  it("per email: the 11th attempt on one email within a minute is 429 from any IP; other emails are not limited", async () => {
    const account = await signUp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const response = await fetchWith(limited, post("/v1/auth/login", { email: account.email, password: "not the password at all" }, { "cf-connecting-ip": `203.0.113.${i + 1}` }));
      statuses.push(response.status);
      if (i === 10) expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const right = await fetchWith(limited, post("/v1/auth/login", { email: account.email, password: account.password }, { "cf-connecting-ip": "203.0.113.99" }));
    expect(right.status).toBe(429);
    const other = await signUp();
    const fine = await fetchWith(limited, post("/v1/auth/login", { email: other.email, password: other.password }, { "cf-connecting-ip": "203.0.113.99" }));
    expect(fine.status).toBe(200);
  });

  it("leaves out the switch between one's accounts: a signed-in person's choice guesses nothing, and a dashboard may switch often", async () => {
    const person = await signUp();
    const headers = { "cf-connecting-ip": "198.51.100.9", cookie: `gpr_session=${person.session}`, origin: BASE };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await fetchWith(limited, post("/v1/auth/switch", { account_id: person.id }, headers))).status);
    expect(statuses).toEqual(Array(12).fill(200));
    expect((await fetchWith(limited, post("/v1/auth/login", { email: uniqueEmail(), password: PASSWORD }, headers))).status).toBe(401);
  });
});
