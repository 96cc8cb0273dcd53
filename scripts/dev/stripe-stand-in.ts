// A local stand-in for the two Stripe endpoints the service calls, written from Stripe's API
// reference (Checkout Sessions: create and retrieve), for the tests and `npm run dev --
// --stripe-stand-in`, since Stripe cannot be reached from here. It refuses what Stripe refuses
// (a wrong key, a missing or unknown parameter, an amount under $0.50, an idempotency key reused
// with other parameters) in Stripe's error shape. Its Checkout page pays a session: the session
// turns paid and the stand-in sends `checkout.session.completed` to the service's webhook, signed
// with the `stripe` package's own test-header helper, as Stripe signs it. A paid session can then be
// disputed (and the dispute won or lost) or warned of as fraud (stripe-payment-events.ts), by a call
// or by a POST to the stand-in: /stand-in/sessions/{id}/dispute, /stand-in/disputes/{id}/close
// (status=won or lost), /stand-in/sessions/{id}/early_fraud_warning.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { paymentEvents, type PaymentEvents } from "./stripe-payment-events.ts";
import { webhookSender } from "./stripe-webhook-sender.ts";

export interface StandInSession {
  id: string;
  object: "checkout.session";
  mode: "payment";
  currency: string;
  amount_total: number;
  amount_subtotal: number;
  payment_status: "unpaid" | "paid";
  status: "open" | "complete" | "expired";
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string | null;
  url: string | null;
  expires_at: number;
  created: number;
  livemode: false;
}

export interface StripeStandIn {
  url: string;
  sessions: Map<string, StandInSession>;
  /** Pays the session as a customer on the Checkout page would, and sends its webhook; the webhook's answer status. */
  pay(sessionId: string): Promise<number>;
  /** A paid session's payer disputes it: charge.dispute.created. */
  dispute(sessionId: string): ReturnType<PaymentEvents["dispute"]>;
  closeDispute: PaymentEvents["closeDispute"];
  /** Radar's early fraud warning on a paid session's charge. */
  warnOfFraud(sessionId: string): ReturnType<PaymentEvents["warnOfFraud"]>;
  stop(): Promise<void>;
}

export interface StandInOptions {
  /** The Stripe secret key the service is configured with (its prefix is checked as Stripe does). */
  secretKey: string;
  /** Where its events go: asked when one is sent (the service's address may be known only after the stand-in's). */
  webhookUrl: () => string;
  webhookSecret: string;
  port?: number;
}

class StripeError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | undefined;

  constructor(status: number, type: string, message: string, param?: string) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
  }
}

const CREATE_PARAMS = new Set(["mode", "line_items", "client_reference_id", "metadata", "payment_intent_data", "success_url", "cancel_url", "customer_email"]);

export async function startStripeStandIn(options: StandInOptions): Promise<StripeStandIn> {
  const sessions = new Map<string, StandInSession>();
  const idempotency = new Map<string, { body: string; session: StandInSession }>();
  const sendEvent = webhookSender(options.webhookUrl, options.webhookSecret);
  const after = paymentEvents(sendEvent);
  let base = "";

  const create = (form: URLSearchParams, idempotencyKey: string | undefined): StandInSession => {
    const body = form.toString();
    if (idempotencyKey !== undefined) {
      const earlier = idempotency.get(idempotencyKey);
      if (earlier && earlier.body !== body) {
        throw new StripeError(400, "idempotency_error", `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`);
      }
      if (earlier) return earlier.session;
    }
    const params = nested(form);
    for (const name of Object.keys(params)) if (!CREATE_PARAMS.has(name)) throw new StripeError(400, "invalid_request_error", `Received unknown parameter: ${name}`, name);
    if (params.mode === undefined) throw new StripeError(400, "invalid_request_error", "Missing required param: mode.", "mode");
    if (params.mode !== "payment") throw new StripeError(400, "invalid_request_error", `Invalid mode: must be one of payment, setup, or subscription (this stand-in takes payment)`, "mode");
    if (typeof params.success_url !== "string") throw new StripeError(400, "invalid_request_error", "Missing required param: success_url.", "success_url");
    const items = params.line_items;
    if (!Array.isArray(items) || items.length === 0) throw new StripeError(400, "invalid_request_error", "Missing required param: line_items.", "line_items");
    let total = 0;
    let currency = "";
    items.forEach((item, i) => {
      const price = (item as Record<string, unknown>).price_data as Record<string, unknown> | undefined;
      const at = `line_items[${i}]`;
      if (!price) throw new StripeError(400, "invalid_request_error", `Missing required param: ${at}[price_data].`, `${at}[price_data]`);
      if (typeof price.currency !== "string" || !/^[a-z]{3}$/.test(price.currency)) throw new StripeError(400, "invalid_request_error", `Invalid currency: ${String(price.currency)}`, `${at}[price_data][currency]`);
      const unit = Number(price.unit_amount);
      if (!/^\d+$/.test(String(price.unit_amount ?? ""))) throw new StripeError(400, "invalid_request_error", "Invalid non-negative integer", `${at}[price_data][unit_amount]`);
      const name = (price.product_data as Record<string, unknown> | undefined)?.name;
      if (typeof name !== "string" || name === "") throw new StripeError(400, "invalid_request_error", `Missing required param: ${at}[price_data][product_data][name].`, `${at}[price_data][product_data][name]`);
      const quantity = Number((item as Record<string, unknown>).quantity);
      if (!Number.isInteger(quantity) || quantity < 1) throw new StripeError(400, "invalid_request_error", "Missing required param: quantity.", `${at}[quantity]`);
      total += unit * quantity;
      currency = price.currency;
    });
    if (currency === "usd" && total < 50) throw new StripeError(400, "invalid_request_error", "The Checkout Session's total amount due must add up to at least $0.50 usd");
    const reference = params.client_reference_id;
    if (typeof reference === "string" && reference.length > 200) throw new StripeError(400, "invalid_request_error", "Invalid string: must be at most 200 characters", "client_reference_id");
    const now = Math.floor(Date.now() / 1000);
    const id = `cs_test_${randomBytes(16).toString("hex")}`;
    const session: StandInSession = {
      id, object: "checkout.session", mode: "payment", currency, amount_total: total, amount_subtotal: total, payment_status: "unpaid", status: "open",
      client_reference_id: typeof reference === "string" ? reference : null, metadata: (params.metadata as Record<string, string>) ?? {},
      payment_intent: null, success_url: params.success_url, cancel_url: typeof params.cancel_url === "string" ? params.cancel_url : null,
      url: `${base}/pay/${id}`, expires_at: now + 24 * 3600, created: now, livemode: false,
    };
    sessions.set(id, session);
    if (idempotencyKey !== undefined) idempotency.set(idempotencyKey, { body, session });
    return session;
  };

  const pay = async (sessionId: string): Promise<number> => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    Object.assign(session, { payment_status: "paid", status: "complete", payment_intent: `pi_test_${sessionId.slice(8)}`, url: null });
    return sendEvent("checkout.session.completed", session);
  };

  const paidSession = (sessionId: string): StandInSession => {
    const session = sessions.get(sessionId);
    if (!session) throw new StripeError(404, "invalid_request_error", `No such checkout.session: '${sessionId}'`);
    if (session.payment_status !== "paid") throw new StripeError(400, "invalid_request_error", `checkout.session ${sessionId} is not paid`);
    return session;
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      const refusal = error instanceof StripeError ? error : new StripeError(500, "api_error", String(error));
      send(res, refusal.status, { error: { type: refusal.type, message: refusal.message, ...(refusal.param ? { param: refusal.param } : {}) } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", base);
    const body = await readBody(req);
    if (url.pathname.startsWith("/pay/")) return checkoutPage(req, res, url.pathname.slice("/pay/".length));
    if (url.pathname.startsWith("/stand-in/")) return afterPayment(req, res, url, body);
    const auth = req.headers.authorization ?? "";
    if (auth !== `Bearer ${options.secretKey}` || !/^sk_(test|live)_/.test(options.secretKey)) {
      throw new StripeError(401, "invalid_request_error", "Invalid API Key provided");
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      if (!(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) throw new StripeError(400, "invalid_request_error", "Invalid request: expected form-encoded parameters");
      const key = req.headers["idempotency-key"];
      return send(res, 200, create(new URLSearchParams(body), typeof key === "string" ? key : undefined));
    }
    const retrieve = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && retrieve) {
      const session = sessions.get(decodeURIComponent(retrieve[1]!));
      if (!session) throw new StripeError(404, "invalid_request_error", `No such checkout.session: '${retrieve[1]}'`, "id");
      return send(res, 200, session);
    }
    throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  }

  /** The POSTs that play what befalls a paid session (a dispute, its end, a fraud warning), for `npm run dev`. */
  async function afterPayment(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<void> {
    const path = url.pathname.split("/").map(decodeURIComponent);
    if (req.method === "POST" && path[2] === "sessions" && path[4] === "dispute") return send(res, 200, await after.dispute(paidSession(path[3]!)));
    if (req.method === "POST" && path[2] === "sessions" && path[4] === "early_fraud_warning") return send(res, 200, await after.warnOfFraud(paidSession(path[3]!)));
    if (req.method === "POST" && path[2] === "disputes" && path[4] === "close") {
      const status = new URLSearchParams(body).get("status") ?? url.searchParams.get("status");
      if (status !== "won" && status !== "lost") throw new StripeError(400, "invalid_request_error", "status: must be won or lost", "status");
      if (!after.disputes.has(path[3]!)) throw new StripeError(404, "invalid_request_error", `No such dispute: '${path[3]}'`, "id");
      return send(res, 200, await after.closeDispute(path[3]!, status));
    }
    throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  }

  async function checkoutPage(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const session = sessions.get(id);
    if (!session) throw new StripeError(404, "invalid_request_error", `No such checkout.session: '${id}'`);
    if (req.method === "POST") {
      await pay(id);
      res.writeHead(303, { location: session.success_url.replace("{CHECKOUT_SESSION_ID}", id) });
      return void res.end();
    }
    const dollars = (session.amount_total / 100).toFixed(2);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Checkout (Stripe stand-in)</title><h1>Pay $${dollars}</h1>
<form method="post"><button type="submit">Pay $${dollars}</button></form>${session.cancel_url ? `<a href="${session.cancel_url}">Cancel</a>` : ""}`);
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    sessions,
    pay,
    dispute: (sessionId) => after.dispute(paidSession(sessionId)),
    closeDispute: after.closeDispute,
    warnOfFraud: (sessionId) => after.warnOfFraud(paidSession(sessionId)),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomBytes(7).toString("hex")}` });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Stripe's form encoding (`a[b][0][c]=v`) as nested objects and arrays. */
function nested(form: URLSearchParams): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of form) {
    const path = key.replace(/\]/g, "").split("[");
    let node: Record<string, unknown> | unknown[] = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(path[i + 1]!);
      const slot = (node as Record<string, unknown>)[part];
      if (last) (node as Record<string, unknown>)[part] = value;
      else node = (slot ?? ((node as Record<string, unknown>)[part] = nextIsIndex ? [] : {})) as Record<string, unknown>;
    });
  }
  return root;
}
