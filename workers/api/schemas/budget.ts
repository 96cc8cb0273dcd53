// The account's monthly budget as /v1/me shows it and PATCH /v1/account sets it
// (durable-objects/account/money/budgets.ts).
import { z } from "@hono/zod-openapi";
import { BUDGET_ACTIONS } from "../../../durable-objects/contracts/budgets.ts";

const BUDGET_RULE = "must be an integer number of micro-dollars from 0 to 1e15, or null for none";

export const monthlyBudget = z.number().int().nullable().openapi({
  description: "The account's monthly budget in micro-dollars (UTC calendar month: instance and storage charges); null: none",
});

export const budgetAction = z.enum(BUDGET_ACTIONS).openapi({
  description: "At the budget launches and starts are refused (402 budget_exceeded); `stop` also stops every running instance (volumes kept), `notify` leaves them running",
});

export const monthSpend = z.number().int().openapi({
  description: "This UTC calendar month's instance and storage charges in micro-dollars, settled up to this request",
});

/** PATCH /v1/account's budget fields. */
export const budgetSettings = {
  monthly_budget_micros: z.number(BUDGET_RULE).int(BUDGET_RULE).min(0, BUDGET_RULE).max(1e15, BUDGET_RULE).nullable().optional()
    .openapi({ description: "The monthly budget in micro-dollars; webhooks `budget.threshold` at 50, 80 and 100 % of it, once each a month; null: none" }),
  budget_action: z.enum(BUDGET_ACTIONS, "must be stop or notify").optional()
    .openapi({ description: "What reaching the budget does besides refusing launches and starts: `stop` running instances, or `notify` only (the default)" }),
};
