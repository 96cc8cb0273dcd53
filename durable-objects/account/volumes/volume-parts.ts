// What the volumes' parts of the AccountDO work with: its storage, its bindings (the bucket
// `VOLUMES`, the MachineDOs), the account's id, and the volumes' locks and garbage.
import type { Env } from "../../../core/env.ts";
import type { Sql } from "../../sql.ts";
import type { VolumeGarbage } from "./garbage.ts";
import type { VolumeLocks } from "./volume-locks.ts";

export interface VolumeParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
  accountId(): string;
  locks: VolumeLocks;
  garbage: VolumeGarbage;
}
