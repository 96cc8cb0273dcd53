// Opening an instance web app for a caller of this account. The AccountDO admits the caller (a key
// or a session) and the instance (its own, and the port one of its HTTP ports); the instance's
// MachineDO, the authority for tickets and app sessions (machine/app-sessions.ts), decides whether it
// runs and issues the one-time ticket. A key that opened an app is checked by the MachineDO on every
// request against the key set this object pushes; a session's end reaches every host of the account
// (credential-ends.ts), which a sign-out queued after an open waits for.
import { machineOf, type Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { machineIdOfInstance } from "../../../core/ids.ts";
import type { PortSpec } from "../../../core/port-spec.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import { openerOf, type Caller } from "../credentials/credential-check.ts";
import type { InstanceRow } from "./instance-row.ts";
import { currentKeySet } from "../credentials/key-set.ts";

export interface AppOpenerParts {
  sql: Sql;
  env: Env;
  record: AccountRecord;
}

export class AppOpeners {
  private readonly parts: AppOpenerParts;

  constructor(parts: AppOpenerParts) {
    this.parts = parts;
  }

  /**
   * A ticket for `port` of the caller's instance `row` (found and visible). Run in the account's queue,
   * with `caller` checked there: the end of a sign-out queued after it reaches the host after the ticket.
   */
  async open(caller: Caller, row: InstanceRow, port: number): Promise<{ ok: true; ticket: string; expires_ms: number } | Failure> {
    const { sql, record } = this.parts;
    const ports = JSON.parse(row.ports) as PortSpec[];
    if (!ports.some((spec) => spec.port === port && spec.kind === "http")) return fail("not_found", `instance ${row.id} has no HTTP port ${port}`);
    // An app's host is routed by the machine its instance id names, which an id made before ids named
    // their machine does not: its app could never be reached.
    if (machineIdOfInstance(row.id) !== row.machine_id) {
      return fail("conflict", `instance ${row.id} was created before web apps had origins of their own; reach port ${port} through the proxy (or gpu forward)`);
    }
    return machineOf(this.parts.env, row.machine_id!).issueAppTicket({
      account_id: record.id(), instance_id: row.id, port, opener: openerOf(caller), key_set: currentKeySet(sql, record.id()),
    });
  }
}
