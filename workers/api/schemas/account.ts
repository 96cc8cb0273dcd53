// GET /me (account fields grouped under `account`, apart from the balance; the person and their
// accounts), and the operator's account bodies (API keys: keys.ts).
import { z } from "@hono/zod-openapi";
import type { AccountInfo } from "../../../durable-objects/contracts/accounts.ts";
import { ROLES, type AccountMembership, type Role } from "../../../durable-objects/contracts/members.ts";
import { timestamp } from "./common.ts";
import type { BudgetView } from "../../../durable-objects/contracts/budgets.ts";
import { budgetAction, budgetSettings, monthlyBudget, monthSpend } from "./budget.ts";
import { accountName as accountNameRule } from "./members.ts";

const accountId = z.string().openapi({ description: "The account's id: `acc-` and 16 lowercase base32 characters; its keys and sessions carry it" });
const referralCode = z.string().openapi({ description: "The account's referral code: 8 characters of A-Z and 2-7, fixed at creation" });
const accountCreatedAt = timestamp.openapi({ description: "When the account was created" });
const accountEmail = z.string().nullable().openapi({ description: "The email it signs in with (lower case); null for accounts the operator created without one" });

const lowBalance = z.number().int().openapi({ description: "A `balance.low` webhook is sent when the balance falls below this many micro-dollars (default 5,000,000; 0: never)" });

const accountName = z.string().openapi({ description: "What its members call it (PATCH /v1/account `name`); until set, its owner's email" });
const role = z.enum(ROLES).openapi({ description: "The caller's role in the account: owner, admin, developer, billing or viewer (an API key: its maker's; owner for a key made before teams or by the operator)" });

export const Me = z
  .object({
    account: z
      .object({
        id: accountId, name: accountName, referral_code: referralCode, created_at: accountCreatedAt, email: accountEmail,
        low_balance_micros: lowBalance, monthly_budget_micros: monthlyBudget, budget_action: budgetAction, role,
      })
      .openapi({ description: "The account the caller acts on, apart from its balance" }),
    balance_micros: z.number().int().openapi({ description: "The balance in micro-dollars (1,000,000 = $1), settled up to this request" }),
    month_spend_micros: monthSpend,
    user: z
      .object({
        id: z.string().openapi({ description: "The person's id: `usr-` and 16 lowercase base32 characters" }),
        email: z.string().openapi({ description: "The email they sign in with" }),
      })
      .nullable()
      .openapi({ description: "The signed-in person; null for an API key" }),
    accounts: z
      .array(z.object({ id: accountId, name: accountName, role }))
      .openapi({ description: "Every account the person belongs to, with their role in each (POST /v1/auth/switch moves the session); for an API key, its own account alone" }),
  })
  .openapi("Me");

/** The /me shape: the account's fields grouped apart from the balance and the month's spend, who the caller is, and their accounts. */
export function meBody(
  { balance_micros, month_spend_micros, ...account }: AccountInfo & BudgetView & { role: Role },
  user: { id: string; email: string } | null,
  accounts: AccountMembership[],
): z.infer<typeof Me> {
  return { account, balance_micros, month_spend_micros, user, accounts };
}

const micros = z.number().int("must be an integer number of micro-dollars").min(-1e15).max(1e15);

export const AccountSettingsBody = z
  .object({
    low_balance_micros: z.number().int("must be an integer number of micro-dollars").min(0).max(1e15).optional()
      .openapi({ description: "The balance.low threshold in micro-dollars; 0 turns the alert off" }),
    name: accountNameRule.optional(),
    ...budgetSettings,
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), "must set name, low_balance_micros, monthly_budget_micros or budget_action")
  .openapi("AccountSettings");

export const CreateAccountBody = z
  .object({
    balance_micros: micros.min(0).optional()
      .openapi({ description: "The opening balance in micro-dollars, written to the ledger as a credit; 0 when left out" }),
  })
  .strict()
  .openapi("CreateAccount");

export const AdminAccount = z
  .object({
    id: accountId,
    referral_code: referralCode,
    created_at: accountCreatedAt,
    email: accountEmail,
    balance_micros: z.number().int().openapi({ description: "The balance in micro-dollars (at creation, the opening balance)" }),
    max_gpus: z.number().int().openapi({ description: "GPUs the account may hold at once in any live status: its own limit, or ACCOUNT_MAX_GPUS" }),
    low_balance_micros: lowBalance,
    frozen: z.boolean().openapi({ description: "Whether its launches and starts are refused (403 account_frozen): after Stripe's early fraud warning on one of its payments, or set by the operator, until the operator clears it" }),
    frozen_reason: z.string().nullable().openapi({ description: "Why it is frozen (the Stripe warning, its fraud type and charge; or `frozen by the operator`); null when it is not" }),
  })
  .openapi("AdminAccount");

export const AccountLimitsBody = z
  .object({
    max_gpus: z.number("must be an integer from 0 to 10000, or null").int("must be an integer from 0 to 10000, or null")
      .min(0, "must be an integer from 0 to 10000, or null").max(10_000, "must be an integer from 0 to 10000, or null").nullable().optional()
      .openapi({ description: "GPUs the account may hold at once in any live status; null: back to ACCOUNT_MAX_GPUS" }),
    frozen: z.boolean("must be true or false").optional()
      .openapi({ description: "false clears a freeze (its launches and starts are taken again); true freezes the account" }),
  })
  .strict()
  .refine((body) => body.max_gpus !== undefined || body.frozen !== undefined, "must set max_gpus, frozen or both")
  .openapi("AccountLimits");

export const CreditBody = z
  .object({
    amount_micros: micros.openapi({ description: "Micro-dollars to add to the balance; negative to take them off (a debit)" }),
    note: z.string().max(200).optional().openapi({ description: "The ledger entry's note; `operator credit` when left out" }),
  })
  .strict()
  .openapi("Credit");

export const Balance = z
  .object({ balance_micros: z.number().int().openapi({ description: "The balance after the change, in micro-dollars" }) })
  .openapi("Balance");
