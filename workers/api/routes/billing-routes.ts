// /v1/billing/ledger: every change of the balance, newest first, in pages (key or session).
import { OpenAPIHono } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { json } from "../schemas/common.ts";
import { LedgerPage, LedgerQuery } from "../schemas/ledger.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const DEFAULT_LIMIT = 50;

const ledgerRoute = callerRoute([400], {
  method: "get", path: "/billing/ledger", summary: "Balance history, newest first",
  description:
    "Credits, debits and charges (one row per instance and settlement), each with the balance after it. " +
    "Pages follow `next_cursor`; entries written meanwhile never make a page repeat or skip one.",
  request: { query: LedgerQuery }, responses: { 200: json(LedgerPage, "A page of entries") },
});

export const billingRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(ledgerRoute, async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const page = unwrap(await accountOf(c.env, c.var.accountId).ledger(c.var.credential, limit ?? DEFAULT_LIMIT, cursor ? Number(cursor) : null));
  return c.json({ items: page.items, next_cursor: page.next_cursor }, 200);
});
