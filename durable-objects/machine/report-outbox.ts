// MachineDO -> AccountDO reports, numbered by this machine's seq and kept until the account
// acknowledges them. Delivered in order per account; the AccountDO skips any seq it has applied.
import type { MachineReport } from "../object-messages.ts";
import type { Sql } from "../sql.ts";

type ReportBody = MachineReport extends infer R ? (R extends MachineReport ? Omit<R, "seq"> : never) : never;

/** Queues `report` for delivery now. Delivery times are on the platform's clock. */
export function enqueueReport(sql: Sql, accountId: string, report: ReportBody): void {
  // The seq is the row id: assigned once, increasing, so retries carry the same number.
  sql`INSERT INTO reports (account_id, report, attempts, next_ms) VALUES (${accountId}, ${JSON.stringify(report)}, 0, ${Date.now()})`;
}

export function dueReports(sql: Sql, nowMs: number): Map<string, { seqs: number[]; reports: MachineReport[] }> {
  const rows = sql<{ seq: number; account_id: string; report: string }>`
    SELECT seq, account_id, report FROM reports
    WHERE account_id IN (SELECT account_id FROM reports WHERE next_ms <= ${nowMs}) ORDER BY seq`;
  const byAccount = new Map<string, { seqs: number[]; reports: MachineReport[] }>();
  for (const row of rows) {
    const batch = byAccount.get(row.account_id) ?? { seqs: [], reports: [] };
    batch.seqs.push(row.seq);
    batch.reports.push({ ...(JSON.parse(row.report) as ReportBody), seq: row.seq } as MachineReport);
    byAccount.set(row.account_id, batch);
  }
  return byAccount;
}

export function acknowledgeReports(sql: Sql, seqs: number[]): void {
  for (const seq of seqs) sql`DELETE FROM reports WHERE seq = ${seq}`;
}

export function postponeReports(sql: Sql, accountId: string, nowMs: number): void {
  sql`UPDATE reports SET attempts = attempts + 1, next_ms = ${nowMs} + MIN(60000, 1000 * (1 << MIN(attempts, 6)))
      WHERE account_id = ${accountId}`;
}

export function nextReportMs(sql: Sql): number | null {
  return sql<{ next: number | null }>`SELECT MIN(next_ms) AS next FROM reports`[0]?.next ?? null;
}
