// Self-service on the real stack (wrangler dev): a customer signs up, works with the session cookie
// as a browser keeps it, manages keys, reads the ledger while instances are billed, and signs out.
import { describe, expect, it } from "vitest";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

const stack = useE2eStack({ AUTH_RATE_LIMIT_PER_MIN: "1000", SIGNUP_CREDIT_MICROS: "20000000" });

/** A browser's view of one site: the session cookie it keeps, and the Origin its pages send. */
class Browser {
  cookie: string | null = null;
  lastSetCookie: string | null = null;
  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  async send<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: {
        ...(this.cookie ? { cookie: `gpr_session=${this.cookie}` } : {}),
        ...(method === "GET" ? {} : { origin: this.origin }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = response.headers.getSetCookie().find((c) => c.startsWith("gpr_session="));
    if (set) {
      this.lastSetCookie = set;
      const value = set.slice("gpr_session=".length).split(";")[0]!;
      this.cookie = value === "" ? null : value;
    }
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }
}

const email = (tag: string) => `${tag}-${Date.now().toString(36)}@example.com`;

describe("self-service on the real stack", () => {
  it("sign up, use the session, make and revoke a key, read the ledger, change the password, sign out", async () => {
    const browser = new Browser(stack.baseUrl);
    const address = email("ada");
    const signup = await browser.send("POST", "/v1/auth/signup", { email: address.toUpperCase(), password: "a long passphrase" });
    expect(signup.status).toBe(201);
    expect(signup.body).toMatchObject({ account: { email: address }, balance_micros: 20_000_000 });
    // Plain HTTP on 127.0.0.1: the cookie is not Secure, or the browser would never send it back.
    expect(browser.lastSetCookie).toMatch(/^gpr_session=gps_usr-[a-z2-7]{16}_[a-z2-7]{32}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect((await browser.send("GET", "/v1/me")).body).toEqual(signup.body);

    const key = await browser.send<{ id: string; key: string }>("POST", "/v1/keys", { name: "laptop" });
    expect(key.status).toBe(201);
    expect((await stack.api("GET", "/v1/me", undefined, key.body.key)).status).toBe(200);
    const foreign = new Browser("http://evil.example");
    foreign.cookie = browser.cookie;
    expect(await foreign.send("POST", "/v1/keys", { name: "stolen" })).toMatchObject({ status: 403, body: { error: "forbidden" } });
    expect((await browser.send("DELETE", `/v1/keys/${key.body.id}`)).status).toBe(204);
    expect((await stack.api("GET", "/v1/me", undefined, key.body.key)).status).toBe(401);

    const instance = await browser.send<Instance>("POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    expect(instance.status).toBe(201);
    await poll(() => browser.send<Instance>("GET", `/v1/instances/${instance.body.id}`), (r) => r.body.status === "running");
    expect((await browser.send("DELETE", `/v1/instances/${instance.body.id}`)).status).toBe(204);
    type Entry = { kind: string; amount_micros: number; balance_after_micros: number; instance_id: string | null };
    const ledger = await browser.send<{ items: Entry[]; next_cursor: string | null }>("GET", "/v1/billing/ledger?limit=200");
    expect(ledger.body.next_cursor).toBeNull();
    expect(ledger.body.items.at(-1)).toMatchObject({ kind: "credit", amount_micros: 20_000_000, instance_id: null });
    expect(ledger.body.items.filter((e) => e.kind === "charge").every((e) => e.instance_id === instance.body.id)).toBe(true);
    const balance = (await browser.send<{ balance_micros: number }>("GET", "/v1/me")).body.balance_micros;
    expect(ledger.body.items.reduce((sum, e) => sum + e.amount_micros, 0)).toBe(balance);
    expect(ledger.body.items[0]!.balance_after_micros).toBe(balance);

    const phone = new Browser(stack.baseUrl);
    expect((await phone.send("POST", "/v1/auth/login", { email: address, password: "a long passphrase" })).status).toBe(200);
    expect((await browser.send("POST", "/v1/auth/password", { current_password: "a long passphrase", new_password: "a longer passphrase" })).status).toBe(204);
    expect((await phone.send("GET", "/v1/me")).status).toBe(401);
    expect(phone.cookie).toBeNull();
    expect((await browser.send("GET", "/v1/me")).status).toBe(200);

    const session = browser.cookie;
    expect((await browser.send("POST", "/v1/auth/logout")).status).toBe(204);
    expect(browser.cookie).toBeNull();
    browser.cookie = session;
    expect((await browser.send("GET", "/v1/me")).status).toBe(401);
    expect((await phone.send("POST", "/v1/auth/login", { email: address, password: "a longer passphrase" })).status).toBe(200);
  }, 60_000);

  it("the dev account signs in with the login npm run dev made, and has $100 whatever the sign-up credit", async () => {
    const { email: devEmail, password, id } = stack.setup.account;
    expect(devEmail).toBe("dev@localhost");
    const browser = new Browser(stack.baseUrl);
    const login = await browser.send("POST", "/v1/auth/login", { email: devEmail, password });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ account: { id, email: "dev@localhost" } });
    expect((await stack.api("GET", "/v1/me")).body).toMatchObject({ account: { id } });
    const ledger = await browser.send<{ items: { amount_micros: number; note: string }[] }>("GET", "/v1/billing/ledger");
    expect(ledger.body.items.map((e) => [e.amount_micros, e.note]).reverse()).toEqual([[20_000_000, "sign-up credit"], [80_000_000, "dev balance"]]);
  });

  it("the same email signed up twice at once over HTTP: one account", async () => {
    const address = email("twice");
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => new Browser(stack.baseUrl).send("POST", "/v1/auth/signup", { email: address, password: `password number ${i}!` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });
});
