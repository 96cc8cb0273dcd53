// /v1/audit-log: every change to the account, who made it and from where, newest first, in pages.
import { OpenAPIHono } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { AuditPage, AuditQuery } from "../schemas/audit.ts";
import { json } from "../schemas/common.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const DEFAULT_LIMIT = 50;

const auditRoute = callerRoute([400], {
  method: "get", path: "/audit-log", summary: "Who changed what in the account, newest first",
  description:
    "Every change to the account, by a person, an API key, the operator or the service itself: launches, stops, starts, destroys and updates of instances, " +
    "keys and SSH keys, members and invitations, webhooks, volumes and their snapshots, the account's settings, credits and payments. " +
    "An entry is written in the same transaction as its change: a refused change has none. Entries are kept 400 days. " +
    "Pages follow `next_cursor`; entries written meanwhile never make a page repeat or skip one.",
  request: { query: AuditQuery }, responses: { 200: json(AuditPage, "A page of entries") },
});

export const auditRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(auditRoute, async (c) => {
    const { limit, cursor, actor, action } = c.req.valid("query");
    const query = { limit: limit ?? DEFAULT_LIMIT, before: cursor ? Number(cursor) : null, actor: actor ?? null, action: action ?? null };
    const page = unwrap(await accountOf(c.env, c.var.accountId).auditLog(c.var.credential, query));
    return c.json({ items: page.items, next_cursor: page.next_cursor }, 200);
  });
