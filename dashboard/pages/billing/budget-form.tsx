// "Monthly budget": a ceiling in dollars on this UTC month's instance and storage charges (empty: none),
// and what reaching it does besides refusing launches and starts: stop what runs, or only notify.
import { useState, type FormEvent } from "react";
import { dollarsToMicros } from "../../../client/index.ts";
import type { Me } from "../../api/account.ts";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useSetBudget, type BudgetAction } from "../../api/budget.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { formatDollars } from "../../format/money.ts";

/** "1.5" for 1_500_000: the budget as the field shows it. */
const dollarsText = (micros: number | null) => (micros === null ? "" : formatDollars(micros).slice(1).replaceAll(",", ""));

export function BudgetForm({ me }: { me: Me }) {
  const setBudget = useSetBudget();
  const [dollars, setDollars] = useState(dollarsText(me.account.monthly_budget_micros));
  const [action, setAction] = useState<BudgetAction>(me.account.budget_action);
  const [typed, setTyped] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const micros = dollars.trim() === "" ? null : dollarsToMicros(dollars);
    const wrong = micros === null && dollars.trim() !== "";
    setTyped(wrong ? "Monthly budget: a number of dollars, with at most two decimals; empty for none" : null);
    if (!wrong) setBudget.mutate({ monthly_budget_micros: micros, budget_action: action });
  };
  return (
    <form onSubmit={submit} noValidate className="inline" aria-label="Budget">
      <Field
        label="Monthly budget"
        error={typed ?? fieldError(setBudget.error, "monthly_budget_micros")}
        hint={`In dollars, for this UTC month's instances and storage (${formatDollars(me.month_spend_micros)} so far); empty for none. Reached, launches and starts are refused.`}
      >
        {(control) => <input {...control} type="text" inputMode="decimal" value={dollars} onChange={(e) => setDollars(e.target.value)} />}
      </Field>
      <Field label="When reached" error={fieldError(setBudget.error, "budget_action")}>
        {(control) => (
          <select {...control} value={action} onChange={(e) => setAction(e.target.value as BudgetAction)}>
            <option value="stop">Stop instances</option>
            <option value="notify">Notify only</option>
          </select>
        )}
      </Field>
      <button type="submit" className="primary" disabled={setBudget.isPending}>
        Save budget
      </button>
      {setBudget.isSuccess && !setBudget.isPending && <span role="status">Budget saved</span>}
      <FormError message={formError(setBudget.error, ["monthly_budget_micros", "budget_action"])} />
    </form>
  );
}
