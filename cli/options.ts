// Option texts and value parsers shared by several commands.
import { dollarsToMicros } from "../client/index.ts";
import { InvalidArgumentError } from "@commander-js/extra-typings";

export const JSON_HELP = "print the API's JSON answer unchanged";
export const QUIET_HELP = "print nothing on stdout (a terminal or a pipe gets one line saying what was done)";

/** A whole number, checked for its form only: the API checks its range and names the field. */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError("must be a whole number");
  return Number(value);
}

/** Dollars as typed ("25", "25.5", "25.50") to micro-dollars: whole cents only. */
export function dollarAmount(value: string): number {
  const micros = dollarsToMicros(value);
  if (micros === null) throw new InvalidArgumentError("must be an amount of dollars, e.g. 25 or 25.50");
  return micros;
}
