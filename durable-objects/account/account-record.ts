// The account itself: its one row (id, referral code, email, and the balance ledger.ts keeps). It
// exists once the operator has initialized it or a sign-up has created it (sign-in.ts); before that
// every caller is refused and every operator call is 404.
import { fail, type Failure } from "../../core/errors.ts";
import { newReferralCode } from "../../core/ids.ts";
import type { AccountInfo } from "../contracts/accounts.ts";
import type { Sql } from "../sql.ts";
import { changeBalance } from "./money/ledger.ts";

export class AccountRecord {
  private readonly sql: Sql;
  private readonly transaction: <T>(fn: () => T) => T;

  constructor(sql: Sql, transaction: <T>(fn: () => T) => T) {
    this.sql = sql;
    this.transaction = transaction;
  }

  /** The operator's account, with an opening balance (a ledger row like any other change). */
  initialize(accountId: string, balanceMicros: number, at: string): AccountInfo {
    this.transaction(() => {
      this.sql`INSERT INTO account (id, referral_code, created_at, balance_micros) VALUES (${accountId}, ${newReferralCode()}, ${at}, 0)`;
      if (balanceMicros !== 0) changeBalance(this.sql, { kind: "credit", amountMicros: balanceMicros, note: "opening balance", at });
    });
    return this.info()!;
  }

  info(): AccountInfo | undefined {
    // An account not named since it was made is called by its owner's email, or its id.
    return this.sql<AccountInfo>`SELECT id, COALESCE(name, email, id) AS name, referral_code, created_at, email, balance_micros, low_balance_micros
      FROM account`[0];
  }

  /** The account's id; only asked once the account exists. */
  id(): string {
    return this.info()!.id;
  }
}

/** The operator's answer for an account that does not exist (yet). */
export const noSuchAccount = (): Failure => fail("not_found", "no such account");
