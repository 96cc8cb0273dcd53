// The account's key set as the MachineDOs hosting its instances hold it, to admit proxied requests
// without asking this object: the SHA-256 of every live key and a version that increases with every
// key change, of the keys whose role may use instances (members/member-keys.ts). This object is the authority; a change reaches every holder through the outbox, and a
// revocation is answered only once every holder has acknowledged it: a holder ends the streams a key
// no longer in the set opened (machine/stream-credentials.ts).
import type { KeySet } from "../../contracts/object-messages.ts";
import type { Delivery } from "../../outbox/outbox.ts";
import type { Sql } from "../../sql.ts";
import type { MachineDirectives } from "../machine-directives.ts";
import { clock, iso } from "../../../core/clock.ts";
import { instanceUseKeys } from "../members/member-keys.ts";

/** The set as it stands (version 0 before the first key change). */
export function currentKeySet(sql: Sql, accountId: string): KeySet {
  const version = sql<{ version: number }>`SELECT version FROM key_set`[0]?.version ?? 0;
  return { account_id: accountId, version, ...instanceUseKeys(sql, iso(clock.now())) };
}

/** Every key hash `set` holds, limited or not: a revoked key among them ends what it opened where the next set arrives. */
export const heldHashes = (set: KeySet): string[] => [...set.hashes, ...(set.limited ?? []).map((key) => key.hash)];

/** After a key change or a change of its maker's role, inside its transaction: a new version of the set, queued for every machine that may hold an older one. */
export function pushKeySet(sql: Sql, directives: MachineDirectives, accountId: string): Delivery[] {
  sql`INSERT INTO key_set (id, version) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET version = version + 1`;
  const keySet = currentKeySet(sql, accountId);
  return directives.hosts().map((machineId) => directives.enqueue(machineId, { kind: "key_set", key_set: keySet }));
}
