// Option texts and value parsers shared by several commands.
import { InvalidArgumentError } from "@commander-js/extra-typings";

export const JSON_HELP = "print the API's JSON answer unchanged";

/** A whole number, checked for its form only: the API checks its range and names the field. */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError("must be a whole number");
  return Number(value);
}
