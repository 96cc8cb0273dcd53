// Billing checked from what a customer can read: an instance's events say when it ran and when its
// host was away, its ledger charges say what it paid. It owes exactly its hourly price for the time
// it was `running` on an online host (accrual is exact to the micro-dollar, the remainder carried),
// and no charge may end inside a time its host was away.

export interface TimedMessage {
  message: string;
  created_at: string;
}

export interface ChargeRow {
  amount_micros: number;
  /** The instant the charge bills up to. */
  created_at: string;
}

export interface InstanceAudit {
  billableMs: number;
  expectedMicros: number;
  chargedMicros: number;
  /** Charges billed up to an instant when the host was away. */
  chargesWhileAway: number;
}

const MS_PER_HOUR = 3_600_000;
const STARTS_RUNNING = /^Container started; instance is running/;
const ENDS_RUNNING = /^(Stop requested|Stopped: |Destroyed|Error: )/;
const HOST_GONE = /^Host went offline/;
const HOST_BACK = /^Host is back online/;

/** `events` newest first (as the API lists them); `endMs` closes a run still going. */
export function auditInstance(priceHourMicros: number, events: readonly TimedMessage[], charges: readonly ChargeRow[], endMs: number): InstanceAudit {
  let running = false;
  let online = true;
  let billingSince: number | null = null;
  let awaySince: number | null = null;
  let billableMs = 0;
  const away: [number, number][] = [];
  const update = (atMs: number) => {
    const billing = running && online;
    if (billing && billingSince === null) billingSince = atMs;
    if (!billing && billingSince !== null) {
      billableMs += atMs - billingSince;
      billingSince = null;
    }
  };
  for (const { message, created_at } of [...events].reverse()) {
    const atMs = Date.parse(created_at);
    if (STARTS_RUNNING.test(message)) running = true;
    else if (ENDS_RUNNING.test(message)) running = false;
    else if (HOST_GONE.test(message)) {
      online = false;
      awaySince = atMs;
    } else if (HOST_BACK.test(message)) {
      online = true;
      if (awaySince !== null) away.push([awaySince, atMs]);
      awaySince = null;
    }
    update(atMs);
  }
  if (billingSince !== null) billableMs += endMs - billingSince;
  if (awaySince !== null) away.push([awaySince, endMs]);
  const chargesWhileAway = charges.filter(({ created_at }) => {
    const untilMs = Date.parse(created_at);
    return away.some(([from, to]) => untilMs > from && untilMs <= to);
  }).length;
  return {
    billableMs,
    expectedMicros: Math.floor((priceHourMicros * billableMs) / MS_PER_HOUR),
    chargedMicros: -charges.reduce((sum, charge) => sum + charge.amount_micros, 0),
    chargesWhileAway,
  };
}
