// GET /me (account fields grouped under `account`, apart from the balance), API keys, and the
// operator's account bodies.
import { z } from "@hono/zod-openapi";
import type { AccountInfo } from "../../../durable-objects/account/account-do.ts";
import { timestamp } from "./common.ts";

export const Me = z
  .object({
    account: z.object({
      id: z.string(),
      referral_code: z.string(),
      created_at: timestamp,
      email: z.string().nullable().openapi({ description: "Null for accounts the operator created without one" }),
    }),
    balance_micros: z.number().int(),
  })
  .openapi("Me");

/** The /me shape of an account: its fields grouped apart from the balance. */
export function meBody({ balance_micros, ...account }: AccountInfo): z.infer<typeof Me> {
  return { account, balance_micros };
}

const micros = z.number().int("must be an integer number of micro-dollars").min(-1e15).max(1e15);

export const CreateAccountBody = z.object({ balance_micros: micros.min(0).optional() }).strict().openapi("CreateAccount");

export const AdminAccount = z
  .object({ id: z.string(), referral_code: z.string(), created_at: timestamp, email: z.string().nullable(), balance_micros: z.number().int() })
  .openapi("AdminAccount");

export const CreditBody = z
  .object({ amount_micros: micros, note: z.string().max(200).optional() })
  .strict()
  .openapi("Credit");

export const Balance = z.object({ balance_micros: z.number().int() }).openapi("Balance");

export const CreateKeyBody = z.object({ name: z.string().max(100).optional() }).strict().openapi("CreateKey");

export const CreatedKey = z
  .object({ id: z.string(), key: z.string().openapi({ description: "The key itself: shown this once" }), name: z.string(), prefix: z.string(), created_at: timestamp })
  .openapi("CreatedKey");

export const KeyList = z
  .object({
    items: z.array(
      z.object({ id: z.string(), name: z.string(), prefix: z.string(), created_at: timestamp, last_used_at: timestamp.nullable() }),
    ),
  })
  .openapi("KeyList");
