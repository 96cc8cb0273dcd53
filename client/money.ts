// Dollars as a person types them, to the API's micro-dollars: whole cents only, no floating point.

/** "25", "25.5" or "25.50" to micro-dollars; null for anything else (a third decimal, a sign, words). */
export function dollarsToMicros(text: string): number | null {
  const match = /^\s*(\d{1,7})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return (Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"))) * 10_000;
}
