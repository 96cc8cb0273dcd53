// Hands what a verified Stripe event does to the account it concerns, which applies it once
// (account/payments.ts, disputes.ts, account-freeze.ts). An event about nothing of this service's
// (an account that does not exist, a session it did not create, a payment it did not take) changes
// nothing and is logged, and Stripe is still answered 200, so that it stops sending it.
import type Stripe from "stripe";
import { accountOf, stripePaymentOf, type Env } from "../../../core/env.ts";
import { log } from "../../../core/log.ts";
import type { StripeFact } from "./stripe-events.ts";

export async function deliverFact(env: Env, fact: StripeFact, event: Stripe.Event): Promise<void> {
  const ids = { stripe_event: event.id, stripe_type: event.type };
  const accountId = "accountId" in fact.account ? fact.account.accountId : await stripePaymentOf(env, fact.account.paymentIntent).accountId();
  if (accountId === null) {
    log("warn", "a Stripe event about a payment this service did not take: nothing changed", { ...ids, payment_intent: "paymentIntent" in fact.account ? fact.account.paymentIntent : undefined });
    return;
  }
  const account = accountOf(env, accountId);
  const ignored = (reason: string) => log("warn", "a Stripe event about nothing of this service's: nothing changed", { ...ids, account_id: accountId, reason });
  if ("warning" in fact) {
    const answer = await account.receiveFraudWarning(fact.warning);
    if (!answer.ok) return ignored(answer.message);
    if (answer.frozen) log("warn", "an account frozen by Stripe's early fraud warning on its payment, until the operator clears it", { ...ids, account_id: accountId });
    return;
  }
  const answer = await account.receivePayment(fact.payment);
  if (!answer.ok) return ignored(answer.message);
  // Written after the account took the payment, and on every delivery of it, so that a failure here is mended by Stripe's retry.
  if (fact.payment.kind === "paid" && fact.paidBy) await stripePaymentOf(env, fact.paidBy).remember(accountId, fact.payment.session_id);
}
