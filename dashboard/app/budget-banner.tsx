// On every page while this month's spend is at 50 % of the account's monthly budget or more: how far it
// has gone, and what reaching it does.
import type { Me } from "../api/account.ts";
import { budgetReached } from "../format/budget.ts";
import { formatDollars } from "../format/money.ts";

export function BudgetBanner({ me }: { me: Me }) {
  const percent = budgetReached(me);
  const budget = me.account.monthly_budget_micros;
  if (percent === null || budget === null) return null;
  const spent = `${formatDollars(me.month_spend_micros)} of the ${formatDollars(budget)} monthly budget spent this month`;
  const refused = me.account.budget_action === "stop" ? "running instances are stopped and launches and starts refused" : "launches and starts are refused";
  return (
    <p className="warning" role="status" data-testid="budget-banner">
      {percent === 100
        ? `Monthly budget reached (100 %): ${spent}; ${refused} until next month or a higher budget.`
        : `${percent} % of the monthly budget reached: ${spent}. At 100 % ${refused}.`}
    </p>
  );
}
