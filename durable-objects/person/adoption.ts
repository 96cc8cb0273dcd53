// A person from before teams: an account held its one login (email, password hash, sessions). The
// person made from it (personOfLegacyAccount: the same 16 characters) takes the login over on the
// first call that needs it, with the same session ids and hashes, so every session cookie and the
// password of then keep working; the account then forgets them.
import { iso } from "../../core/clock.ts";
import { personOfLegacyAccount } from "../contracts/members.ts";
import type { LegacyLogin } from "../contracts/persons.ts";
import { listAccount } from "./account-list.ts";
import { storePassword, type LoginStore } from "./sign-in.ts";

/** Whether this object holds a person yet. */
export const hasPerson = (store: LoginStore) => store.sql`SELECT 1 FROM person`.length > 0;

/** Stores the login `accountId` handed over, unless a person is here already (another call adopted it meanwhile). */
export function storeLegacyLogin(store: LoginStore, accountId: string, login: LegacyLogin): void {
  store.transaction(() => {
    if (hasPerson(store)) return;
    const { sql } = store;
    const at = iso(store.nowMs());
    sql`INSERT INTO person (id, email, created_at) VALUES (${personOfLegacyAccount(accountId)}, ${login.email}, ${at})`;
    storePassword(sql, login.password, at);
    listAccount(sql, accountId, at);
    for (const session of login.sessions) {
      sql`INSERT INTO sessions (id, hash, created_at, last_used_ms, account_id)
          VALUES (${session.id}, ${session.hash}, ${session.created_at}, ${session.last_used_ms}, ${accountId})`;
    }
  });
}
