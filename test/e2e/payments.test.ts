// Card payments end to end: the real stack with payments on, its Stripe client pointed at the local
// stand-in of Stripe's API (scripts/dev/stripe-stand-in.ts), whose Checkout page pays and sends the
// signed webhook. A stranger signs up with $0, adds funds and launches, with no operator involved.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeStandIn, type StripeStandIn } from "../../scripts/dev/stripe-stand-in.ts";
import { startE2eStack, type E2eStack } from "./support/e2e-stack.ts";
import { cliEnv, runGpu, RunningGpu } from "./support/gpu-cli.ts";
import { testTempDir } from "../support/agent/temp-dir.ts";

const SECRET_KEY = "sk_test_e2e";
const WEBHOOK_SECRET = "whsec_e2e";
let stack: E2eStack;
let stripe: StripeStandIn;

beforeAll(async () => {
  stripe = await startStripeStandIn({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookUrl: () => `${stack.baseUrl}/v1/billing/stripe/webhook` });
  stack = await startE2eStack({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripe.url, AUTH_RATE_LIMIT_PER_MIN: "1000" });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await stripe?.stop();
});

/** A new account signed up in a browser's way: its session cookie, sent with this service's Origin. */
async function stranger(): Promise<(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>> {
  const email = `payer-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const signup = await fetch(`${stack.baseUrl}/v1/auth/signup`, {
    method: "POST", headers: { "content-type": "application/json", origin: stack.baseUrl }, body: JSON.stringify({ email, password: "correct horse battery" }),
  });
  expect(signup.status).toBe(201);
  const cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method, headers: { cookie, origin: stack.baseUrl, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

const launch = { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" };

describe("adding funds by card", () => {
  it("takes a stranger from $0 through Checkout to a credited balance and a launch, the payment credited once", async () => {
    const as = await stranger();
    expect((await as("GET", "/v1/billing/config")).body).toEqual({ payments_enabled: true, currency: "usd", min_micros: 5_000_000, max_micros: 1_000_000_000, funding_help: "" });
    expect((await as("POST", "/v1/instances", launch)).status).toBe(402);
    const me = (await as("GET", "/v1/me")).body as { account: { id: string } };

    const checkout = await as("POST", "/v1/billing/checkout", { amount_micros: 25_000_000 });
    expect(checkout).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^cs_test_/), url: `${stripe.url}/pay/${checkout.body.id}`, expires_at: expect.any(String) } });
    expect(stripe.sessions.get(checkout.body.id)).toMatchObject({
      mode: "payment", currency: "usd", amount_total: 2500, client_reference_id: me.account.id, metadata: { account_id: me.account.id },
      success_url: `${stack.baseUrl}/billing?payment=success&session={CHECKOUT_SESSION_ID}`, cancel_url: `${stack.baseUrl}/billing?payment=cancelled`,
    });

    expect(await stripe.pay(checkout.body.id)).toBe(200);
    expect(await stripe.pay(checkout.body.id)).toBe(200);
    expect((await as("GET", "/v1/me")).body.balance_micros).toBe(25_000_000);
    const ledger = (await as("GET", "/v1/billing/ledger")).body.items as { kind: string; amount_micros: number; note: string }[];
    expect(ledger.filter((entry) => entry.kind === "payment")).toEqual([expect.objectContaining({ amount_micros: 25_000_000, note: `Stripe Checkout ${checkout.body.id}` })]);
    const launched = await as("POST", "/v1/instances", launch);
    expect(launched.status).toBe(201);
    await as("DELETE", `/v1/instances/${launched.body.id}`);
  });

  it("pays on the Checkout page as a browser does: back to the dashboard's billing page, credited", async () => {
    const as = await stranger();
    const checkout = await as("POST", "/v1/billing/checkout", { amount_micros: 10_000_000 });
    const page = await fetch(checkout.body.url);
    expect(await page.text()).toContain("Pay $10.00");
    const paid = await fetch(checkout.body.url, { method: "POST", redirect: "manual" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`${stack.baseUrl}/billing?payment=success&session=${checkout.body.id}`);
    expect((await as("GET", "/v1/me")).body.balance_micros).toBe(10_000_000);
  });

  it("refuses amounts off by a cent or out of bounds, asking Stripe for nothing", async () => {
    const as = await stranger();
    const before = stripe.sessions.size;
    for (const amount_micros of [25_000_001, 4_990_000, 1_000_010_000, -10_000_000]) {
      const refused = await as("POST", "/v1/billing/checkout", { amount_micros });
      expect([amount_micros, refused.status, refused.body.error]).toEqual([amount_micros, 400, "invalid"]);
      expect(refused.body.message).toContain("amount_micros");
    }
    expect(stripe.sessions.size).toBe(before);
  });

  it("passes an Idempotency-Key on: a retried checkout gets the same session", async () => {
    const as = await stranger();
    const first = await as("POST", "/v1/billing/checkout", { amount_micros: 5_000_000 }, { "idempotency-key": "retry-1" });
    const again = await as("POST", "/v1/billing/checkout", { amount_micros: 5_000_000 }, { "idempotency-key": "retry-1" });
    expect(again.body.id).toBe(first.body.id);
  });
});

describe("after the payment: disputes and fraud warnings, as the stand-in sends them", () => {
  const operator = (method: string, path: string, body?: unknown) => fetch(`${stack.baseUrl}/admin/v1${path}`, {
    method, headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));

  it("a dispute takes the payment back, and winning it gives it back; a fraud warning freezes launches until the operator clears it", async () => {
    const as = await stranger();
    const me = (await as("GET", "/v1/me")).body as { account: { id: string } };
    const checkout = await as("POST", "/v1/billing/checkout", { amount_micros: 20_000_000 });
    expect(await stripe.pay(checkout.body.id)).toBe(200);

    const opened = await stripe.dispute(checkout.body.id);
    expect(opened.status).toBe(200);
    expect((await as("GET", "/v1/me")).body.balance_micros).toBe(0);
    expect((await stripe.closeDispute(opened.dispute.id, "won")).status).toBe(200);
    expect((await as("GET", "/v1/me")).body.balance_micros).toBe(20_000_000);
    const disputes = ((await as("GET", "/v1/billing/ledger")).body.items as { kind: string; amount_micros: number }[]).filter((e) => e.kind === "dispute");
    expect(disputes.map((e) => e.amount_micros)).toEqual([20_000_000, -20_000_000]);

    expect((await stripe.warnOfFraud(checkout.body.id)).status).toBe(200);
    expect(await as("POST", "/v1/instances", launch)).toMatchObject({ status: 403, body: { error: "account_frozen" } });
    expect(await operator("GET", `/accounts/${me.account.id}`)).toMatchObject({ status: 200, body: { frozen: true, frozen_reason: expect.stringContaining("early fraud warning") } });
    expect((await operator("PATCH", `/accounts/${me.account.id}`, { frozen: false })).body).toMatchObject({ frozen: false });
    const launched = await as("POST", "/v1/instances", launch);
    expect(launched.status).toBe(201);
    await as("DELETE", `/v1/instances/${launched.body.id}`);
  });

  it("plays them by a POST to the stand-in too, as `npm run dev -- --stripe-stand-in` offers: a session not paid is refused in Stripe's shape", async () => {
    const as = await stranger();
    const checkout = await as("POST", "/v1/billing/checkout", { amount_micros: 5_000_000 });
    const unpaid = await fetch(`${stripe.url}/stand-in/sessions/${checkout.body.id}/dispute`, { method: "POST" });
    expect(unpaid.status).toBe(400);
    expect(await unpaid.json()).toMatchObject({ error: { type: "invalid_request_error", message: expect.stringContaining("not paid") } });
    await stripe.pay(checkout.body.id);
    const disputed = await fetch(`${stripe.url}/stand-in/sessions/${checkout.body.id}/dispute`, { method: "POST" });
    expect(await disputed.json()).toMatchObject({ status: 200, dispute: { id: expect.stringMatching(/^dp_test_/), status: "needs_response" } });
    expect((await as("GET", "/v1/me")).body.balance_micros).toBe(0);
  });
});

describe("gpu topup", () => {
  it("prints the Checkout address and, with --wait, stays until the payment is credited", async () => {
    const as = await stranger();
    const { key } = (await as("POST", "/v1/keys", { name: "cli" })).body as { key: string };
    const env = cliEnv(testTempDir("gpu-topup-"), { GPU_API_URL: stack.baseUrl, GPU_API_KEY: key });
    const topup = new RunningGpu(["topup", "12.50", "--wait"], env);
    const url = await topup.line((line) => line.startsWith(`${stripe.url}/pay/`));
    expect(stripe.sessions.get(url.split("/").at(-1)!)).toMatchObject({ amount_total: 1250 });
    await stripe.pay(url.split("/").at(-1)!);
    expect(await topup.line((line) => line.startsWith("Payment received"))).toBe("Payment received: your balance is $12.50");
    expect(await runGpu(["topup", "12.505"], env)).toMatchObject({ code: 2, stderr: expect.stringContaining("must be an amount of dollars") });
  });
});
