// What this account tells the MachineDOs of its instances, through its outbox: desired-state changes,
// key sets and the end of sessions and SSH keys, in order per machine. A change a request must see applied
// (a stop, a destroy, a revocation, a sign-out) is delivered now and confirmed before the answer: a
// host that does not acknowledge in time makes the request 500, saying the change is being applied.
import { clock } from "../../core/clock.ts";
import { machineOf, type Env } from "../../core/env.ts";
import { fail, type Failure } from "../../core/errors.ts";
import type { MachineDirective } from "../contracts/object-messages.ts";
import { Outbox, type Delivery } from "../outbox/outbox.ts";
import type { SingleAlarm } from "../outbox/single-alarm.ts";
import type { Sql } from "../sql.ts";
import type { AccountRecord } from "./account-record.ts";

export class MachineDirectives extends Outbox<MachineDirective> {
  private readonly db: Sql;

  constructor(sql: Sql, env: Env, record: AccountRecord, alarms: SingleAlarm) {
    super(sql, {
      name: "machine directive",
      now: () => clock.now(),
      send: (machineId, batch) => machineOf(env, Number(machineId)).applyDirectives(batch.map((queued) => queued.message)),
      logIds: (machineId) => ({ account_id: record.info()?.id, machine_id: Number(machineId) }),
      queued: () => alarms.backstop(),
    });
    this.db = sql;
  }

  /**
   * The machines that may hold anything of this account (a key set, a web app, a stream): those of its
   * instances not destroyed, and any still waiting for a delivery (a destroy among them).
   */
  hosts(): string[] {
    const hosts = new Set(this.db<{ machine_id: number }>`
      SELECT DISTINCT machine_id FROM instances WHERE machine_id IS NOT NULL AND status != 'destroyed'`.map((row) => String(row.machine_id)));
    for (const { destination } of this.pending()) hosts.add(destination);
    return [...hosts];
  }

  /** Delivers now and waits; null once every one is acknowledged, else 500 `internal` saying `pendingMessage`. */
  async confirm(deliveries: Delivery[], pendingMessage: string): Promise<Failure | null> {
    if (deliveries.length === 0 || (await this.deliverNow(deliveries))) return null;
    return fail("internal", pendingMessage);
  }
}
