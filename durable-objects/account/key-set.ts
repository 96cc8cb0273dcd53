// The account's key set as the MachineDOs hosting its instances hold it, to admit proxied requests
// without asking this object: the SHA-256 of every live key and a version that increases with every
// key change. This object is the authority; a change reaches every holder through the outbox, and a
// revocation is answered only once every holder has acknowledged it.
import type { KeySet, MachineDirective } from "../contracts/object-messages.ts";
import type { Delivery, Outbox } from "../outbox/outbox.ts";
import type { Sql } from "../sql.ts";

/** The set as it stands (version 0 before the first key change). */
export function currentKeySet(sql: Sql, accountId: string): KeySet {
  const version = sql<{ version: number }>`SELECT version FROM key_set`[0]?.version ?? 0;
  const hashes = sql<{ hash: string }>`SELECT hash FROM api_keys WHERE revoked_at IS NULL ORDER BY hash`.map((row) => row.hash);
  return { account_id: accountId, version, hashes };
}

/**
 * After a key change, inside its transaction: a new version of the set, queued for every machine that
 * may hold an older one (those of instances not destroyed, and any still waiting for a delivery).
 */
export function pushKeySet(sql: Sql, outbox: Outbox<MachineDirective>, accountId: string): Delivery[] {
  sql`INSERT INTO key_set (id, version) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET version = version + 1`;
  const keySet = currentKeySet(sql, accountId);
  const holders = new Set(sql<{ machine_id: number }>`
    SELECT DISTINCT machine_id FROM instances WHERE machine_id IS NOT NULL AND status != 'destroyed'`.map((row) => String(row.machine_id)));
  for (const { destination } of outbox.pending()) holders.add(destination);
  return [...holders].map((machineId) => outbox.enqueue(machineId, { kind: "key_set", key_set: keySet }));
}
