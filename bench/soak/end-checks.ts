// What the soak checks once its clients have stopped: no proxied stream left open in a MachineDO,
// every account's ledger summing to its balance, and every instance charged exactly for the time it
// ran on an online host, never for time its host was away.
import { setTimeout as sleep } from "node:timers/promises";
import { auditInstance, type TimedMessage } from "./billing-audit.ts";
import type { Check } from "./soak-report.ts";

const STREAMS_SETTLE_MS = 15_000;

export interface SoakAccount {
  name: string;
  key: string;
}

interface LedgerRow {
  id: number;
  kind: string;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
  created_at: string;
}

interface InstanceRead {
  id: string;
  status: string;
  price_hour_micros: number;
}

async function get<T>(baseUrl: string, key: string, path: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Open streams per machine (the bench route), polled until all are 0 or they settle elsewhere. */
export async function openStreamsCheck(baseUrl: string, machineIds: Record<string, number>): Promise<Check> {
  const deadline = Date.now() + STREAMS_SETTLE_MS;
  for (;;) {
    const open: Record<string, number> = {};
    for (const [name, id] of Object.entries(machineIds)) {
      open[name] = ((await (await fetch(`${baseUrl}/bench/open-streams/${id}`)).json()) as { open_streams: number }).open_streams;
    }
    const ok = Object.values(open).every((n) => n === 0);
    if (ok || Date.now() > deadline) {
      return { name: "open streams in the MachineDOs", ok, detail: Object.entries(open).map(([name, n]) => `${name} ${n}`).join(", ") };
    }
    await sleep(200);
  }
}

/** Destroys every instance still there, so nothing accrues while the ledgers are read. */
export async function destroyAll(baseUrl: string, accounts: readonly SoakAccount[]): Promise<void> {
  for (const { key } of accounts) {
    for (const instance of (await get<{ items: InstanceRead[] }>(baseUrl, key, "/v1/instances")).items) {
      if (instance.status === "destroyed") continue;
      const response = await fetch(`${baseUrl}/v1/instances/${instance.id}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } });
      if (response.status !== 204) throw new Error(`destroying ${instance.id}: ${response.status} ${await response.text()}`);
    }
  }
}

async function wholeLedger(baseUrl: string, key: string): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: { items: LedgerRow[]; next_cursor: string | null } = await get(baseUrl, key, `/v1/billing/ledger?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    rows.push(...page.items);
    if (!page.next_cursor) return rows;
    cursor = page.next_cursor;
  }
}

/** The ledger check and the two billing checks, over every account. */
export async function billingChecks(baseUrl: string, accounts: readonly SoakAccount[]): Promise<Check[]> {
  const ledgerProblems: string[] = [];
  const chargeProblems: string[] = [];
  let rows = 0;
  let instances = 0;
  let whileAway = 0;
  for (const { name, key } of accounts) {
    const balance = (await get<{ balance_micros: number }>(baseUrl, key, "/v1/me")).balance_micros;
    const ledger = await wholeLedger(baseUrl, key);
    rows += ledger.length;
    const sum = ledger.reduce((total, row) => total + row.amount_micros, 0);
    if (sum !== balance) ledgerProblems.push(`${name}: ledger sums to ${sum}, balance ${balance}`);
    let running = 0;
    for (const row of [...ledger].reverse()) {
      running += row.amount_micros;
      if (row.balance_after_micros !== running) ledgerProblems.push(`${name}: entry ${row.id} says ${row.balance_after_micros} after, the sum is ${running}`);
    }
    for (const instance of (await get<{ items: InstanceRead[] }>(baseUrl, key, "/v1/instances")).items) {
      instances++;
      const events = (await get<{ items: TimedMessage[] }>(baseUrl, key, `/v1/instances/${instance.id}/events`)).items;
      const charges = ledger.filter((row) => row.kind === "charge" && row.instance_id === instance.id);
      const audit = auditInstance(instance.price_hour_micros, events, charges, Date.now());
      whileAway += audit.chargesWhileAway;
      if (audit.chargedMicros !== audit.expectedMicros) {
        chargeProblems.push(`${name} ${instance.id}: charged ${audit.chargedMicros}, owes ${audit.expectedMicros} for ${audit.billableMs} ms`);
      }
    }
  }
  return [
    { name: "every ledger sums to its balance", ok: ledgerProblems.length === 0, detail: ledgerProblems.join("; ") || `${accounts.length} accounts, ${rows} entries` },
    { name: "charges: exactly the price of the time running on an online host", ok: chargeProblems.length === 0, detail: chargeProblems.join("; ") || `${instances} instances` },
    { name: "no charge while a host was away", ok: whileAway === 0, detail: `${whileAway} charges ending while the host was away` },
  ];
}
