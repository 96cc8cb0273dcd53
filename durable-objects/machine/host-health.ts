// Whether this machine's agent takes new instances, and if not why (its tenant firewall missing,
// disk limits it cannot enforce): the last hello's `degraded`, kept current by `health` messages.
// This object refuses reservations while it is set, and FleetDO learns it with the machine's state,
// so placement skips the machine and the operator sees the reason in GET /admin/v1/machines.
import type { Sql } from "../sql.ts";

export class MachineHealth {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** "" when the machine takes new instances. */
  degraded(): string {
    return this.sql<{ degraded: string }>`SELECT degraded FROM host_health`[0]?.degraded ?? "";
  }

  /** Stores what the agent said; true when it changed. */
  replace(degraded: string): boolean {
    if (degraded === this.degraded()) return false;
    this.sql`INSERT OR REPLACE INTO host_health (id, degraded) VALUES (1, ${degraded})`;
    return true;
  }
}
