// The price of volumes' storage, which the AccountDO charges (durable-objects/account/volumes/) and
// /pricing.json shows: micro-dollars per GB (10^9 bytes) per month of 730 hours.
import type { Env } from "./env.ts";

const DEFAULT_PRICE_GB_MONTH_MICROS = 70_000;

/** VOLUME_PRICE_GB_MONTH_MICROS, 70,000 ($0.07) when unset. */
export function volumePriceGbMonthMicros(env: Env): number {
  const configured = Number(env.VOLUME_PRICE_GB_MONTH_MICROS);
  return Number.isSafeInteger(configured) && configured >= 0 && env.VOLUME_PRICE_GB_MONTH_MICROS !== "" ? configured : DEFAULT_PRICE_GB_MONTH_MICROS;
}
