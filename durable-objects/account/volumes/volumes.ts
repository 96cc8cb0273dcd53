// The account's volumes, as the AccountDO holds them: the store (the callers' and the files route's
// calls), the commits of saves, the garbage collection its alarm retries and the daily sweep of
// objects nothing names, sharing one set of per-volume locks; and the deletion its alarm makes once a
// used-up balance's grace is over.
import type { Env } from "../../../core/env.ts";
import type { Sql } from "../../sql.ts";
import { VolumeCommits } from "./commits.ts";
import { VolumeGarbage } from "./garbage.ts";
import { VolumeSweep } from "./orphan-sweep.ts";
import { VolumeGrace } from "./storage-grace.ts";
import { VolumeUploads } from "./uploads.ts";
import { VolumeLocks } from "./volume-locks.ts";
import { VolumeStore } from "./volume-store.ts";

export class Volumes {
  readonly store: VolumeStore;
  readonly commits: VolumeCommits;
  readonly garbage: VolumeGarbage;
  /** The daily sweep of each volume's objects that no kept manifest names (orphan-sweep.ts). */
  readonly sweep: VolumeSweep;
  /** Files going in in parts with no instance (uploads.ts), forgotten on the alarm an hour after their last part. */
  readonly uploads: VolumeUploads;
  /** The deletion of volumes whose grace for a used-up balance is over (storage-grace.ts). */
  readonly grace: VolumeGrace;

  /** `backstop`: the account's SingleAlarm.backstop, for the garbage queued in a change. */
  constructor(sql: Sql, env: Env, transaction: <T>(fn: () => T) => T, accountId: () => string, backstop: () => void) {
    const locks = new VolumeLocks();
    this.garbage = new VolumeGarbage(sql, env, locks, backstop);
    const parts = { sql, env, transaction, accountId, locks, garbage: this.garbage };
    this.store = new VolumeStore(parts);
    this.commits = new VolumeCommits(parts);
    this.uploads = new VolumeUploads(parts, this.store, this.commits);
    this.sweep = new VolumeSweep(parts);
    this.grace = new VolumeGrace(sql, this.store);
  }
}
