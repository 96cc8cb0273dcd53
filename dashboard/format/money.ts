// The one way the dashboard shows an amount: integer micro-dollars as dollars with cents, rounded
// to the nearest cent (half away from zero) with integer arithmetic only.
const MICROS_PER_CENT = 10_000;

/** 100_000_000 → "$100.00", -1_234_567 → "-$1.23", 1_234_500_000 → "$1,234.50". */
export function formatDollars(micros: number): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`not an integer amount of micro-dollars: ${micros}`);
  const magnitude = Math.abs(micros);
  const remainder = magnitude % MICROS_PER_CENT;
  const cents = (magnitude - remainder) / MICROS_PER_CENT + (remainder * 2 >= MICROS_PER_CENT ? 1 : 0);
  const whole = String((cents - (cents % 100)) / 100).replace(/\B(?=(\d{3})+$)/g, ",");
  const sign = micros < 0 && cents > 0 ? "-" : "";
  return `${sign}$${whole}.${String(cents % 100).padStart(2, "0")}`;
}

/** A price per hour: "$0.69/h". */
export const formatPerHour = (micros: number) => `${formatDollars(micros)}/h`;

/** A ledger amount with its direction: "+$10.00" for money in, "-$0.69" for money out. */
export const formatSignedDollars = (micros: number) => (micros > 0 ? `+${formatDollars(micros)}` : formatDollars(micros));
