// GET /v1/billing/ledger: its query and its page of entries.
import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.ts";

const limitRule = "must be an integer from 1 to 200";

export const LedgerQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, limitRule)
    .transform(Number)
    .pipe(z.number().min(1, limitRule).max(200, limitRule))
    .optional()
    .openapi({ param: { name: "limit", in: "query" }, type: "integer", minimum: 1, maximum: 200, example: 50 }),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "must be the next_cursor of a previous page")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "next_cursor of the previous page; absent for the newest entries" }),
});

export const LedgerPage = z
  .object({
    items: z.array(
      z.object({
        id: z.number().int(),
        created_at: timestamp,
        kind: z.enum(["credit", "debit", "charge"]),
        amount_micros: z.number().int().openapi({ description: "Positive for credits, negative for debits and charges" }),
        balance_after_micros: z.number().int(),
        instance_id: z.string().nullable().openapi({ description: "The instance a charge is for; null otherwise" }),
        note: z.string(),
      }),
    ),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null on the last page" }),
  })
  .openapi("LedgerPage");
