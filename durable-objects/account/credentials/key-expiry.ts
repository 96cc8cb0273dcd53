// An expiring key's end reaches the hosts when it expires, as a revocation's does. The account refuses
// the key from that second on (credential-check.ts); this alarm part then pushes a key set without it,
// so the hosts stop admitting it, and tells them it ended, so the SSH connections, WebSockets and
// followed logs it opened end too (a key the set never held, without instances:use, may have opened
// followed logs). Each expiry is told once.
import { iso } from "../../../core/clock.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import { addColumnIfMissing } from "../../add-column.ts";
import type { AccountRecord } from "../account-record.ts";
import type { MachineDirectives } from "../machine-directives.ts";
import { keyEnded } from "./credential-ends.ts";
import { pushKeySet } from "./key-set.ts";

export interface KeyExpiryParts {
  sql: Sql;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  directives: MachineDirectives;
}

export function addKeyExpiryColumn(sql: Sql): void {
  // 1 once the key's expiry was told to the hosts.
  addColumnIfMissing(sql, "api_keys", "expiry_told", "INTEGER NOT NULL DEFAULT 0");
}

export class KeyExpiry implements AlarmCapability {
  private readonly parts: KeyExpiryParts;

  constructor(parts: KeyExpiryParts) {
    this.parts = parts;
  }

  nextAlarmMs(): number | null {
    const [row] = this.parts.sql<{ at: string | null }>`
      SELECT MIN(expires_at) AS at FROM api_keys WHERE revoked_at IS NULL AND expires_at IS NOT NULL AND expiry_told = 0`;
    return row?.at ? Date.parse(row.at) : null;
  }

  onAlarm(nowMs: number): void {
    const { sql, transaction, record, directives } = this.parts;
    transaction(() => {
      const expired = sql<{ hash: string }>`UPDATE api_keys SET expiry_told = 1
        WHERE revoked_at IS NULL AND expires_at IS NOT NULL AND expiry_told = 0 AND expires_at <= ${iso(nowMs)} RETURNING hash`;
      if (expired.length === 0) return;
      pushKeySet(sql, directives, record.id());
      for (const { hash } of expired) keyEnded(this.parts, hash);
    });
  }
}
