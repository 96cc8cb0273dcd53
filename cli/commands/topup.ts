// `gpu topup <dollars>`: add funds by card. Prints the Stripe Checkout address to pay at (or opens it
// with --browser); with --wait, stays until the payment is credited (the ledger shows the session's
// payment) or the session expires.
import { Command } from "@commander-js/extra-typings";
import { ok, type GpuClient } from "../../client/index.ts";
import { openInBrowser } from "../browser.ts";
import { CliError } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson } from "../format.ts";
import { dollarAmount, JSON_HELP } from "../options.ts";
import { interrupted, sleep } from "../sleep.ts";

const POLL_MS = 2_000;

export function topupCommand(f: Factory) {
  return new Command("topup")
    .description("Add funds by card: print (or open) a Stripe Checkout address for the amount")
    .argument("<dollars>", "how much, in dollars, e.g. 25 or 25.50", dollarAmount)
    .option("--browser", "open the address in the default browser instead of printing it")
    .option("--wait", "wait until the payment is credited to your balance")
    .option("--json", JSON_HELP)
    .action(async (amountMicros, options) => {
      const api = await f.client();
      const session = await ok(api.POST("/v1/billing/checkout", { body: { amount_micros: amountMicros } }));
      if (options.json) printJson(f.io, session);
      else if (options.browser) await openInBrowser(session.url);
      else f.io.out(session.url);
      if (!options.wait) return;
      if (f.io.isStderrTty) f.io.err(`Waiting for the payment of ${dollars(amountMicros)} (until ${session.expires_at}; Ctrl-C stops waiting)...`);
      const balance = await waitForPayment(api, session.id, Date.parse(session.expires_at));
      if (!options.json) f.io.out(`Payment received: your balance is ${dollars(balance)}`);
    });
}

/** The balance once the session's payment is in the ledger; fails when it expires or the wait is interrupted. */
async function waitForPayment(api: GpuClient, sessionId: string, expiresMs: number): Promise<number> {
  const signal = interrupted();
  for (;;) {
    const ledger = await ok(api.GET("/v1/billing/ledger", { params: { query: { limit: 50 } } }));
    if (ledger.items.some((entry) => entry.kind === "payment" && entry.note === `Stripe Checkout ${sessionId}`)) {
      return (await ok(api.GET("/v1/me"))).balance_micros;
    }
    if (Date.now() > expiresMs) throw new CliError(`the checkout session ${sessionId} expired unpaid`);
    if (!(await sleep(POLL_MS, signal))) throw new CliError("stopped waiting; the payment is credited when it is made");
  }
}
