// Gigabytes a volume keeps, for billing tests, without storing them in miniflare's bucket: a manifest
// naming one chunk of `bytes`, kept by a snapshot or as the volume's next version, recorded in the
// AccountDO as a commit records what it keeps (the time before charged at the size before), so
// `stored_bytes` grows by `bytes`; deleting the snapshot through the API, or the next commit after the
// version, frees them again. Nothing reads these objects but a commit, which finds the manifest absent
// and so tells the content changed.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { clock, iso } from "../../../core/clock.ts";
import { newSnapshotId, randomBase32 } from "../../../core/ids.ts";
import { manifestName } from "../../../protocol/volumes.ts";
import { chunkBytes, keepManifest } from "../../../durable-objects/account/volumes/chunk-refs.ts";
import { chargeStorageUntil } from "../../../durable-objects/account/volumes/storage-charges.ts";
import { sqlFor } from "../../../durable-objects/sql.ts";

/** Volume `volumeId` of account `accountId` keeps `bytes` more, by a snapshot (its id is returned) or as its next version. */
export function keepBytes(accountId: string, volumeId: string, bytes: number, by: "snapshot" | "version" = "snapshot"): Promise<string> {
  return runInDurableObject(env.ACCOUNTS.getByName(accountId), async (_, state) => {
    const sql = sqlFor(state.storage);
    const snapshotId = newSnapshotId();
    const manifest = manifestName(randomBase32(20));
    const hash = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
    state.storage.transactionSync(() => {
      chargeStorageUntil(sql, env, volumeId, clock.now());
      if (by === "snapshot") {
        sql`INSERT INTO volume_snapshots (id, volume_id, name, version, manifest, stored_bytes, created_at)
            VALUES (${snapshotId}, ${volumeId}, 'kept', 0, ${manifest}, ${bytes}, ${iso(clock.now())})`;
      } else {
        sql`UPDATE volumes SET version = version + 1, manifest = ${manifest}, used_bytes = ${bytes}, saved_at = ${iso(clock.now())} WHERE id = ${volumeId}`;
      }
      keepManifest(sql, volumeId, manifest, new Map([[hash, bytes]]));
      sql`UPDATE volumes SET stored_bytes = ${chunkBytes(sql, volumeId)} WHERE id = ${volumeId}`;
    });
    // As the AccountDO's change would: its alarm set again, now that storage accrues.
    await state.storage.setAlarm(Date.now() + 60_000);
    return snapshotId;
  });
}
