// Which chunks each kept manifest of a volume names: a manifest is kept while it is the volume's latest
// version or a snapshot's. A chunk no kept manifest names is garbage, unless an upload in progress
// keeps it for the version its final part will make (uploads.ts); the unique chunks kept manifests
// name are the volume's stored bytes.
import type { Sql } from "../../sql.ts";

/** Records the chunks (hash to size) `manifest` names; inside the transaction that makes it kept. */
export function keepManifest(sql: Sql, volumeId: string, manifest: string, chunks: Map<string, number>): void {
  for (const [hash, size] of chunks) {
    sql`INSERT OR IGNORE INTO volume_chunk_refs (volume_id, manifest, hash, size) VALUES (${volumeId}, ${manifest}, ${hash}, ${size})`;
  }
}

/**
 * Whether a kept manifest of the volume, or an upload in progress into it, names chunk `hash`: it was
 * checked stored when that manifest was committed or that part appended, and nothing deletes it since.
 */
export const isKeptChunk = (sql: Sql, volumeId: string, hash: string): boolean =>
  sql`SELECT 1 FROM volume_chunk_refs WHERE volume_id = ${volumeId} AND hash = ${hash}
      UNION ALL SELECT 1 FROM volume_upload_chunks WHERE volume_id = ${volumeId} AND hash = ${hash} LIMIT 1`.length > 0;

/** The bytes of the unique chunks `manifest` (or, without it, every kept manifest of the volume) names. */
export function chunkBytes(sql: Sql, volumeId: string, manifest?: string): number {
  const [row] = manifest === undefined
    ? sql<{ bytes: number | null }>`SELECT SUM(size) AS bytes FROM (SELECT MAX(size) AS size FROM volume_chunk_refs WHERE volume_id = ${volumeId} GROUP BY hash)`
    : sql<{ bytes: number | null }>`SELECT SUM(size) AS bytes FROM volume_chunk_refs WHERE volume_id = ${volumeId} AND manifest = ${manifest}`;
  return row?.bytes ?? 0;
}

/**
 * Inside a transaction, after the volume's latest version or a snapshot stopped naming `manifest`:
 * when nothing names it any more, its references go and the chunks no other kept manifest names are
 * returned, to be deleted with it; null while it is still kept.
 */
export function releaseManifest(sql: Sql, volumeId: string, manifest: string): string[] | null {
  const stillKept = sql`SELECT 1 FROM volumes WHERE id = ${volumeId} AND manifest = ${manifest}
                        UNION ALL SELECT 1 FROM volume_snapshots WHERE volume_id = ${volumeId} AND manifest = ${manifest}`.length > 0;
  if (stillKept) return null;
  const freed = sql<{ hash: string }>`SELECT hash FROM volume_chunk_refs AS mine WHERE volume_id = ${volumeId} AND manifest = ${manifest}
    AND NOT EXISTS (SELECT 1 FROM volume_chunk_refs AS other WHERE other.volume_id = mine.volume_id AND other.hash = mine.hash AND other.manifest <> mine.manifest)
    AND NOT EXISTS (SELECT 1 FROM volume_upload_chunks AS staged WHERE staged.volume_id = mine.volume_id AND staged.hash = mine.hash)`;
  sql`DELETE FROM volume_chunk_refs WHERE volume_id = ${volumeId} AND manifest = ${manifest}`;
  return freed.map((row) => row.hash);
}
