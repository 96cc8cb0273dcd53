// Sign-up's account: made by the EmailDO once it claimed the owner's email, with its owner as its first
// member and the sign-up credit, in one transaction. Asked again for the
// same owner (a retried sign-up) it answers as the first time; refused once the sign-up was given up
// (signup-fence.ts) or the account is another's.
import { iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { newReferralCode } from "../../../core/ids.ts";
import type { Sql } from "../../sql.ts";
import { changeBalance } from "../money/ledger.ts";
import { mayCreateAccount } from "./signup-fence.ts";
import type { Members } from "./members.ts";

export interface NewOwnedAccount {
  accountId: string;
  user_id: string;
  email: string;
  creditMicros: number;
}

export function createForOwner(sql: Sql, members: Members, owner: NewOwnedAccount, nowMs: number): { ok: true } | Failure {
  if (!mayCreateAccount(sql)) {
    const [account] = sql<{ id: string }>`SELECT id FROM account`;
    return account?.id === owner.accountId && members.find(owner.user_id)?.role === "owner" ? { ok: true } : fail("conflict", "this account cannot be created");
  }
  const at = iso(nowMs);
  // Unnamed, it is called by its owner's email (account-record.ts).
  sql`INSERT INTO account (id, referral_code, created_at, balance_micros, email)
      VALUES (${owner.accountId}, ${newReferralCode()}, ${at}, 0, ${owner.email})`;
  members.add({ user_id: owner.user_id, email: owner.email, role: "owner" }, at);
  if (owner.creditMicros > 0) changeBalance(sql, { kind: "credit", amountMicros: owner.creditMicros, note: "sign-up credit", at });
  return { ok: true };
}
