// Volume and snapshot rows as the AccountDO stores them (schema.ts), found by id or name, and shown
// as the API's objects.
import { iso } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { volumePriceGbMonthMicros } from "../../../core/volume-prices.ts";
import { VOLUME_ID_PATTERN } from "../../../protocol/volumes.ts";
import type { SnapshotView, VolumeAttachmentView, VolumeView } from "../../contracts/volumes.ts";
import type { Sql } from "../../sql.ts";
import { storageMonthMicros } from "./storage-accrual.ts";

export interface VolumeRow {
  id: string;
  name: string;
  size_gb: number;
  version: number;
  manifest: string | null;
  used_bytes: number;
  stored_bytes: number;
  saved_at: string | null;
  created_at: string;
  created_ms: number;
  billed_until_ms: number;
  delete_at_ms: number | null;
}

export interface SnapshotRow {
  id: string;
  volume_id: string;
  name: string;
  version: number;
  manifest: string | null;
  stored_bytes: number;
  created_at: string;
}

/** `{volume}` is a volume's id (`vol_…`) or its name: names never have the id's underscore. */
export function findVolume(sql: Sql, idOrName: string): VolumeRow | undefined {
  return VOLUME_ID_PATTERN.test(idOrName)
    ? sql<VolumeRow>`SELECT * FROM volumes WHERE id = ${idOrName}`[0]
    : sql<VolumeRow>`SELECT * FROM volumes WHERE name = ${idOrName}`[0];
}

export const noVolume = (idOrName: string): Failure => fail("not_found", `no volume ${idOrName} in this account`);

export function attachmentsOf(sql: Sql, volumeId: string): VolumeAttachmentView[] {
  return sql<{ instance_id: string; path: string; read_only: number }>`
    SELECT instance_id, path, read_only FROM volume_attachments WHERE volume_id = ${volumeId} ORDER BY instance_id`
    .map((row) => ({ instance_id: row.instance_id, path: row.path, read_only: row.read_only === 1 }));
}

export function toVolumeView(sql: Sql, env: Env, row: VolumeRow): VolumeView {
  return {
    id: row.id,
    name: row.name,
    size_gb: row.size_gb,
    used_bytes: row.used_bytes,
    stored_bytes: row.stored_bytes,
    version: row.version,
    attachments: attachmentsOf(sql, row.id),
    saved_at: row.saved_at,
    created_at: row.created_at,
    price_month_micros: storageMonthMicros(row.stored_bytes, volumePriceGbMonthMicros(env)),
    delete_at: row.delete_at_ms === null ? null : iso(row.delete_at_ms),
  };
}

export const toSnapshotView = (row: SnapshotRow): SnapshotView =>
  ({ id: row.id, name: row.name, version: row.version, stored_bytes: row.stored_bytes, created_at: row.created_at });

/** `bytes` for people, in decimal units: "0 B", "8.4 MB", "1.2 GB". */
export function bytesText(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
