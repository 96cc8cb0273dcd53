// The API's refusals in the dashboard's own words: dollars, not micro-dollars, and what to do about
// it. The API's message goes in a details line (collapsed), so a person is never shown micro-dollars.
import { GpuApiError } from "../../client/index.ts";
import { formatDollars } from "./money.ts";

export interface PlainError {
  text: string;
  /** The page that fixes it, when there is one. */
  action?: { label: string; to: string };
  /** The API's own message, for a details line; absent when `text` is that message. */
  details?: string;
}

/** What the page knows about the money around the request, to say it in dollars. */
export interface MoneyContext {
  balanceMicros?: number;
  priceHourMicros?: number;
}

export function plainError(error: GpuApiError, money: MoneyContext = {}): PlainError {
  const details = error.message;
  switch (error.error) {
    case "insufficient_funds": {
      const balance = money.balanceMicros === undefined ? "Your balance" : `Your balance of ${formatDollars(money.balanceMicros)}`;
      const hour = money.priceHourMicros === undefined ? "" : ` (${formatDollars(money.priceHourMicros)})`;
      return { text: `${balance} does not cover the first hour${hour}.`, action: { label: "Add funds", to: "/billing" }, details };
    }
    case "no_capacity":
      return { text: "No machine has that many of these GPUs free right now. Try fewer GPUs, another model, or again in a few minutes.", details };
    case "gpus_busy":
      return { text: "Its GPUs are taken by someone else now. Start it again later, or launch a new instance.", details };
    case "budget_exceeded":
      return error.message.startsWith("API key")
        ? { text: "This API key's monthly limit is reached by the instances it launched: its launches and their starts wait until next month.", details }
        : { text: "This month's budget is reached: launches and starts wait until next month or a higher budget.", action: { label: "Budget", to: "/billing" }, details };
    case "account_frozen":
      return { text: "Your account is on hold while one of its payments is reviewed: launches and starts wait until the operator clears it. Running instances go on.", details };
    case "rate_limited":
      return { text: "Too many requests at once. Wait a few seconds and try again.", details };
    case "conflict":
      if (error.message.includes("max_gpus")) {
        return { text: "Your account already holds as many GPUs as it may at once. Stop or destroy an instance first.", action: { label: "Your instances", to: "/instances" }, details };
      }
      return { text: error.message };
    default:
      return { text: error.message };
  }
}
