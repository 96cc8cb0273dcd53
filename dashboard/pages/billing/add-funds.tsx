// "Add funds": an amount in dollars (or a preset), then Stripe's Checkout page; back from it, the
// billing page says whether the payment has landed (it polls the balance until the credit shows).
import { useEffect, useState, type FormEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { dollarsToMicros } from "../../../client/index.ts";
import { fieldError, formError } from "../../api/api-errors.ts";
import { meKey, ledgerKey } from "../../api/keys.ts";
import { useLedgerPage } from "../../api/ledger.ts";
import { useCheckout, usePaymentConfig } from "../../api/payments.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { formatDollars } from "../../format/money.ts";

const PRESETS = [10, 25, 100];

export function AddFunds() {
  const config = usePaymentConfig();
  const checkout = useCheckout();
  const [dollars, setDollars] = useState("25");
  const [typed, setTyped] = useState<string | null>(null);
  if (!config.data?.payments_enabled) return null;
  const { min_micros, max_micros } = config.data;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const micros = dollarsToMicros(dollars);
    setTyped(micros === null ? "Amount (USD): a number of dollars, with at most two decimals" : null);
    if (micros !== null) checkout.mutate(micros, { onSuccess: (session) => window.location.assign(session.url) });
  };
  return (
    <form onSubmit={submit} noValidate className="inline" aria-label="Add funds">
      <Field label="Amount (USD)" error={typed ?? fieldError(checkout.error, "amount_micros")} hint={`From ${formatDollars(min_micros)} to ${formatDollars(max_micros)}, by card (Stripe)`}>
        {(control) => <input {...control} type="text" inputMode="decimal" value={dollars} onChange={(e) => setDollars(e.target.value)} />}
      </Field>
      {PRESETS.map((preset) => (
        <button key={preset} type="button" onClick={() => setDollars(String(preset))}>
          ${preset}
        </button>
      ))}
      <button type="submit" className="primary" disabled={checkout.isPending}>
        Add funds
      </button>
      <FormError message={formError(checkout.error, ["amount_micros"])} />
    </form>
  );
}

/**
 * Back from Checkout (`?payment=success&session=cs_...` or `?payment=cancelled`): what became of it.
 * A success is said once the session's credit is in the ledger, which the webhook brings a moment
 * after; until then the page polls.
 */
export function PaymentStatus() {
  const params = new URLSearchParams(window.location.search);
  const outcome = params.get("payment");
  const session = params.get("session");
  const ledger = useLedgerPage(null);
  const queries = useQueryClient();
  const landed = outcome === "success" && (ledger.data?.items ?? []).some((entry) => entry.kind === "payment" && entry.note === `Stripe Checkout ${session}`);
  useEffect(() => {
    if (outcome !== "success" || landed) return;
    const timer = setInterval(() => {
      void queries.invalidateQueries({ queryKey: meKey });
      void queries.invalidateQueries({ queryKey: ledgerKey });
    }, 1000);
    return () => clearInterval(timer);
  }, [outcome, landed, queries]);
  if (outcome !== "success" && outcome !== "cancelled") return null;
  const text = outcome === "cancelled" ? "Payment not completed" : landed ? "Payment received" : "Waiting for the payment to arrive…";
  return (
    <p role="status" data-testid="payment-status">
      {text}
    </p>
  );
}
