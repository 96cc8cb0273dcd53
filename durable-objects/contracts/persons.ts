// What a person's object (PersonDO) promises the Worker, the EmailDO and the AccountDOs: a person is
// made once their email is claimed (EmailDO) and their first account made or joined (AccountDO); a
// session names the person and their current account; and an account from before teams hands its one
// login (email, password hash, sessions) over to the person made from it (personOfLegacyAccount).
import type { Failure } from "../../core/errors.ts";
import type { PasswordHash } from "../../core/password-hash.ts";
import type { PersonCaller } from "./members.ts";

/** EmailDO -> PersonDO: the person to make, once the email is claimed for `user_id` and `account_id` made or joined for them. */
export interface NewPerson {
  user_id: string;
  email: string;
  password: string;
  /** Their first account, the new session's current one. */
  account_id: string;
}

/** A new session's token (shown to the client once), or why there is none. */
export type SessionOpened = { ok: true; session: string } | Failure;

/** A live session: who it is, and the account it acts on now (null: the person belongs to none any more). */
export interface PersonSession {
  person: PersonCaller;
  account_id: string | null;
}

/** An account's one login from before teams, as it hands it over to the person made from it. */
export interface LegacyLogin {
  email: string;
  password: PasswordHash;
  sessions: { id: string; hash: string; created_at: string; last_used_ms: number }[];
}
