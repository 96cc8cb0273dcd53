// What this account tells the MachineDOs of its instances, through its outbox: desired-state changes,
// key sets and the end of app sessions, in order per machine. A change a request must see applied
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
  constructor(sql: Sql, env: Env, record: AccountRecord, alarms: SingleAlarm) {
    super(sql, {
      name: "machine directive",
      now: () => clock.now(),
      send: (machineId, batch) => machineOf(env, Number(machineId)).applyDirectives(batch.map((queued) => queued.message)),
      logIds: (machineId) => ({ account_id: record.info()?.id, machine_id: Number(machineId) }),
      queued: () => alarms.backstop(),
    });
  }

  /** Delivers now and waits; null once every one is acknowledged, else 500 `internal` saying `pendingMessage`. */
  async confirm(deliveries: Delivery[], pendingMessage: string): Promise<Failure | null> {
    if (deliveries.length === 0 || (await this.deliverNow(deliveries))) return null;
    return fail("internal", pendingMessage);
  }
}
