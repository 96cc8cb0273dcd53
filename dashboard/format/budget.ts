// How far this month's spend has gone into the account's monthly budget, at the thresholds the
// service's webhooks use: the banner's percent.
const THRESHOLDS = [100, 80, 50];

/** The highest threshold this month's spend has reached (100, 80 or 50), or null: none, or no budget. */
export function budgetReached(me: { month_spend_micros: number; account: { monthly_budget_micros: number | null } }): number | null {
  const budget = me.account.monthly_budget_micros;
  if (budget === null) return null;
  return THRESHOLDS.find((percent) => me.month_spend_micros * 100 >= budget * percent) ?? null;
}
