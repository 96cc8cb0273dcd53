// Reads an account's stored balance and its ledger straight from the AccountDO's SQLite, so tests
// check the invariant (the ledger sums to the balance) without a hook in production code.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";

export interface LedgerAudit {
  balance_micros: number;
  ledger_sum_micros: number;
  ledger_rows: number;
}

export function auditLedger(accountId: string): Promise<LedgerAudit> {
  return runInDurableObject(env.ACCOUNTS.getByName(accountId), (_instance, state) => {
    const sql = state.storage.sql;
    const balance = sql.exec<{ b: number }>("SELECT balance_micros AS b FROM account").one().b;
    const ledger = sql.exec<{ total: number; n: number }>("SELECT COALESCE(SUM(amount_micros), 0) AS total, COUNT(*) AS n FROM ledger").one();
    return { balance_micros: balance, ledger_sum_micros: ledger.total, ledger_rows: ledger.n };
  });
}

/** The invariant, asserted: the account's ledger sums to its stored balance. */
export async function expectLedgerBalanced(accountId: string): Promise<LedgerAudit> {
  const audit = await auditLedger(accountId);
  expect(audit.ledger_sum_micros, "the ledger's sum").toBe(audit.balance_micros);
  return audit;
}
