// An account's monthly budget as the Worker and the AccountDO speak of it (the AccountDO is its
// authority: durable-objects/account/money/budgets.ts). A month is a UTC calendar month; its spend is
// the instances' and the volumes' charges in it.

export const BUDGET_ACTIONS = ["stop", "notify"] as const;
/** At the budget launches and starts are refused either way; `stop` also stops what runs. */
export type BudgetAction = (typeof BUDGET_ACTIONS)[number];

/** PATCH /v1/account's budget fields: each left out stays as it is; a null budget is none. */
export interface BudgetChanges {
  monthly_budget_micros?: number | null;
  budget_action?: BudgetAction;
}

/** What /v1/me shows of the budget. */
export interface BudgetView {
  monthly_budget_micros: number | null;
  budget_action: BudgetAction;
  /** This month's spend so far, settled up to the request. */
  month_spend_micros: number;
}
