// /v1/billing/ledger: every change of the balance, newest first, in pages; /v1/billing/usage: the
// charges summed by day and instance, and the volumes' storage by day and volume (key or session).
import { OpenAPIHono } from "@hono/zod-openapi";
import { clock } from "../../../core/clock.ts";
import { accountOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { json } from "../schemas/common.ts";
import { LedgerPage, LedgerQuery } from "../schemas/ledger.ts";
import { MAX_USAGE_DAYS, UsageQuery, UsageReport } from "../schemas/usage.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const DEFAULT_LIMIT = 50;
const DAY_MS = 86_400_000;

const ledgerRoute = callerRoute([400], {
  method: "get", path: "/billing/ledger", summary: "Balance history, newest first",
  description:
    "Credits, debits, payments, refunds, charges (one row per instance and clock hour) and storage (one row per volume and clock hour), each with the balance after it. " +
    "The first page leads with `pending` entries while instances run or volumes hold bytes: what they accrued since the last settlement. " +
    "Reading writes nothing. Pages follow `next_cursor`; entries written meanwhile never make a page repeat or skip one.",
  request: { query: LedgerQuery }, responses: { 200: json(LedgerPage, "A page of entries") },
});

const usageRoute = callerRoute([400], {
  method: "get", path: "/billing/usage", summary: "Running time and cost summed by day or instance",
  description: `The hourly charge rows summed over whole UTC days (at most ${MAX_USAGE_DAYS} per request), by day and instance or by instance; ` +
    "the volumes' hourly storage rows apart, in `storage`, by day and volume or by volume.",
  request: { query: UsageQuery }, responses: { 200: json(UsageReport, "The sums") },
});

export const billingRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(ledgerRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const page = unwrap(await accountOf(c.env, c.var.accountId).ledger(c.var.credential, limit ?? DEFAULT_LIMIT, cursor ? Number(cursor) : null));
    return c.json({ items: page.items, next_cursor: page.next_cursor }, 200);
  })
  .openapi(usageRoute, async (c) => {
    const query = c.req.valid("query");
    const today = clock.now() - (clock.now() % DAY_MS);
    const fromMs = query.from ?? Date.parse(new Date(today).toISOString().slice(0, 8) + "01T00:00:00Z");
    const lastDayMs = query.to ?? today;
    if (lastDayMs < fromMs) throw new ApiError("invalid", "to: must not be before from");
    if (lastDayMs - fromMs >= MAX_USAGE_DAYS * DAY_MS) throw new ApiError("invalid", `to: must be at most ${MAX_USAGE_DAYS} days from from (inclusive)`);
    const report = unwrap(await accountOf(c.env, c.var.accountId).usage(c.var.credential, { fromMs, toMs: lastDayMs + DAY_MS, group: query.group ?? "day" }));
    return c.json({ items: report.items, storage: report.storage, total_micros: report.total_micros }, 200);
  });
