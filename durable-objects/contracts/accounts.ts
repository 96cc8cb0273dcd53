// What the AccountDO answers about an account, and the sign-up and sign-in it does for the EmailDO
// (which decides which account holds an email). The refusal of a wrong email or password is
// worded in refusals.ts, since the EmailDO gives it too.
import type { Env } from "../../core/env.ts";
import type { Failure } from "../../core/errors.ts";

export interface AccountInfo {
  id: string;
  /** What its members call it: set with PATCH /v1/account; until then its owner's email, or its id. */
  name: string;
  referral_code: string;
  created_at: string;
  /** Null for accounts the operator created without one. */
  email: string | null;
  balance_micros: number;
  /** A `balance.low` webhook is sent when the balance falls below this (0: never). */
  low_balance_micros: number;
}

/** What the operator sees of an account: besides the account, its GPU limit and whether (and why) it is frozen. */
export interface OperatorAccount extends AccountInfo {
  max_gpus: number;
  /** Launches and starts are refused while frozen (a Stripe early fraud warning, or the operator). */
  frozen: boolean;
  /** Why it is frozen; null when it is not. */
  frozen_reason: string | null;
}

/** The operator's changes of an account's limits: each left out stays as it is. */
export interface AccountLimitChanges {
  /** null: back to ACCOUNT_MAX_GPUS. */
  max_gpus?: number | null;
  frozen?: boolean;
}

/** EmailDO -> AccountDO: the account to create, once the email is claimed for `accountId`. */
export interface NewLoginAccount {
  accountId: string;
  email: string;
  password: string;
  creditMicros: number;
}

/** A sign-up or sign-in answered: the account and its new session's token (shown once). */
export type SignedIn = { ok: true; account: AccountInfo; session: string } | Failure;

/** GPUs an account may hold at once unless the operator set its own limit: ACCOUNT_MAX_GPUS, 16 by default. */
export function defaultMaxGpus(env: Env): number {
  const configured = Number(env.ACCOUNT_MAX_GPUS);
  return env.ACCOUNT_MAX_GPUS && Number.isSafeInteger(configured) && configured >= 0 ? configured : 16;
}
