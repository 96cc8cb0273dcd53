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
    .openapi({ param: { name: "limit", in: "query", description: "How many entries the page holds at most (default 50)" }, type: "integer", minimum: 1, maximum: 200, example: 50 }),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "must be the next_cursor of a previous page")
    .optional()
    .openapi({ param: { name: "cursor", in: "query", description: "next_cursor of the previous page; absent for the newest entries" } }),
});

export const LedgerPage = z
  .object({
    items: z
      .array(
        z.object({
          id: z.number().int().openapi({ description: "The entry's number: higher than that of every earlier entry of the account" }),
          created_at: timestamp.openapi({ description: "When the balance changed; for a charge, the start of the running time it covers (`note` gives the span); for the pending entry, now" }),
          kind: z.enum(["credit", "debit", "charge", "storage", "payment", "refund", "dispute"]).openapi({
            description: "`credit`: money added by the operator; `debit`: money taken off by the operator; `charge`: an instance's running time; " +
              "`storage`: a volume's stored bytes (one row per volume and clock hour, `volume_id` set); " +
              "`payment`: a card payment (Stripe Checkout, its session id in `note`); `refund`: a payment given back (the Stripe charge in `note`); " +
              "`dispute`: a card payment its payer disputed, taken back (negative), or given back when the dispute is won (positive; `note` says won); the Stripe dispute and charge in `note`",
          }),
          amount_micros: z.number().int().openapi({ description: "The change of the balance in micro-dollars: positive for credits, payments and won disputes, negative for debits, charges, storage, refunds and disputes" }),
          balance_after_micros: z.number().int().openapi({ description: "The balance right after this entry (for a charge of an hour still open, after its latest settlement), in micro-dollars" }),
          instance_id: z.string().nullable().openapi({ description: "The instance a charge is for (one row per instance and clock hour: it grows until the hour ends or the instance stops); null otherwise, and on a pending entry for several instances" }),
          volume_id: z.string().nullable().openapi({ description: "The volume a storage entry is for (one row per volume and clock hour, grown as a charge is); null otherwise, and on a pending entry for several volumes" }),
          note: z.string().openapi({
            description: "For a charge the span it covers, `12:00–13:00 UTC, 1 × rtx4090`; for storage the span, the volume and its stored bytes, " +
              "`12:00–13:00 UTC, volume datasets: 1.2 GB`; for a credit or debit the operator's note, `opening balance` or `sign-up credit`",
          }),
          pending: z.boolean().openapi({
            description: "true only for the first page's leading entries: what the running instances (kind `charge`, first) and the volumes (kind `storage`) " +
              "accrued since the last settlement, computed at the read (the top one's balance is the one GET /v1/me shows), not stored; " +
              "their ids are the ones the next stored entries will get",
          }),
        }),
      )
      .openapi({ description: "The page's entries, newest first" }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null on the last page" }),
  })
  .openapi("LedgerPage");
