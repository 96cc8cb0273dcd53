// The key sets of the accounts whose instances this machine hosts: the SHA-256 of each live API key
// that may use instances (and, for a key kept to some instances or expiring, which and until when), as
// the account's AccountDO (the authority) last pushed it, with launch (reserve) and with every key
// change. Only a newer version replaces a set, so a late or repeated delivery changes nothing. Read on
// every proxied request, so kept in memory as well; written only when a set changes. A set is
// forgotten with the account's last container here (the ledger says when): the AccountDO stops
// pushing to a machine once its instances there are destroyed, and a later launch brings the set anew.
// A key a newer set no longer holds was revoked: `dropped` is told, whichever way the set came (an
// outbox delivery, a launch, an app ticket), and the streams the key opened end (stream-credentials.ts).
import { addColumnIfMissing } from "../add-column.ts";
import type { KeySet, LimitedKey } from "../contracts/object-messages.ts";
import type { Sql } from "../sql.ts";

/** A set as admission reads it: each hash to `LIVE`, or to its limits for a limited key. */
interface HeldSet {
  set: KeySet;
  keys: Map<string, typeof LIVE | LimitedKey>;
}

const LIVE = "live";

export class AccountKeySets {
  private readonly sql: Sql;
  private readonly cache = new Map<string, HeldSet>();
  private readonly dropped: (accountId: string, keySha256s: string[]) => void;

  constructor(sql: Sql, dropped: (accountId: string, keySha256s: string[]) => void) {
    this.sql = sql;
    this.dropped = dropped;
    sql`CREATE TABLE IF NOT EXISTS account_key_sets (account_id TEXT PRIMARY KEY, version INTEGER NOT NULL, hashes TEXT NOT NULL)`;
    addColumnIfMissing(sql, "account_key_sets", "limited", "TEXT NOT NULL DEFAULT '[]'");
  }

  apply(set: KeySet): void {
    const held = this.of(set.account_id);
    if (held && held.version >= set.version) return;
    const limited = set.limited ?? [];
    this.sql`INSERT OR REPLACE INTO account_key_sets (account_id, version, hashes, limited)
             VALUES (${set.account_id}, ${set.version}, ${JSON.stringify(set.hashes)}, ${JSON.stringify(limited)})`;
    this.cache.set(set.account_id, indexed({ ...set, limited }));
    const kept = new Set([...set.hashes, ...limited.map((key) => key.hash)]);
    const revoked = held ? [...held.hashes, ...(held.limited ?? []).map((key) => key.hash)].filter((hash) => !kept.has(hash)) : [];
    if (revoked.length > 0) this.dropped(set.account_id, revoked);
  }

  /**
   * The account has no container here any more. A delivery that was already under way may bring an
   * older set back; it admits nothing (no instance of the account is here), and the next launch here
   * carries the current set, which replaces it.
   */
  forget(accountId: string): void {
    this.sql`DELETE FROM account_key_sets WHERE account_id = ${accountId}`;
    this.cache.delete(accountId);
  }

  /**
   * Whether `keySha256` is a live key of the account that may use instance `instanceId` at `nowMs`
   * (none before its set arrives), a limited key's instances and expiry checked as its account checks
   * them. The digest is looked up, not compared in constant time, as the account looks a key up by its
   * indexed hash: what a lookup's timing could tell is how much of a stored digest a guess's digest
   * shares, and no digest leads back to a key (SHA-256 of 256 random bits). Compared one by one, each
   * key an account made cost every request of its 0.9 µs of this object's serial CPU (at the 50 an
   * account may hold, 45 µs, a fifth of what a request may cost it); looked up, 0.1 µs whatever the count.
   */
  admits(accountId: string, keySha256: string, instanceId: string, nowMs: number): boolean {
    const key = this.held(accountId)?.keys.get(keySha256);
    if (key === undefined || key === LIVE) return key === LIVE;
    return (key.instance_ids === null || key.instance_ids.includes(instanceId)) && (key.expires_ms === null || nowMs < key.expires_ms);
  }

  private of(accountId: string): KeySet | undefined {
    return this.held(accountId)?.set;
  }

  private held(accountId: string): HeldSet | undefined {
    let entry = this.cache.get(accountId);
    if (!entry) {
      const [row] = this.sql<{ version: number; hashes: string; limited: string }>`SELECT version, hashes, limited FROM account_key_sets WHERE account_id = ${accountId}`;
      if (!row) return undefined;
      entry = indexed({ account_id: accountId, version: row.version, hashes: JSON.parse(row.hashes) as string[], limited: JSON.parse(row.limited) as LimitedKey[] });
      this.cache.set(accountId, entry);
    }
    return entry;
  }
}

/** A live hash wins over a limited entry of the same hash, as it did when both were compared. */
function indexed(set: KeySet): HeldSet {
  const keys = new Map<string, typeof LIVE | LimitedKey>((set.limited ?? []).map((key) => [key.hash, key]));
  for (const hash of set.hashes) keys.set(hash, LIVE);
  return { set, keys };
}
