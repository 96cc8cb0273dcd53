// What the account's parts are handed by the AccountDO: its storage, clock, bindings, id and outbox,
// and the two steps they share (showing an instance, confirming deliveries to its hosts).
import type { Failure } from "../../core/errors.ts";
import type { Clock } from "../../core/clock.ts";
import type { Env } from "../../core/env.ts";
import type { MachineDirective } from "../contracts/object-messages.ts";
import type { Delivery, Outbox } from "../outbox/outbox.ts";
import type { Sql } from "../sql.ts";
import type { Instance, InstanceRow } from "./instance-row.ts";

export interface AccountContext {
  sql: Sql;
  clock: Clock;
  env: Env;
  accountId: string;
  /** Desired-state changes and key sets for MachineDOs, keyed by machine id. */
  outbox: Outbox<MachineDirective>;
  transaction<T>(fn: () => T): T;
  /** The public instance object, with its token. */
  show(row: InstanceRow): Promise<Instance>;
  /** Delivers now and waits; a failure (500) when a MachineDO did not acknowledge, saying `pendingMessage`. */
  confirm(deliveries: Delivery[], pendingMessage: string): Promise<Failure | null>;
}
