// Opening an instance web app for a caller of this account, and ending what a browser session
// opened when the session ends. The AccountDO admits the caller (a key or a session) and the
// instance (its own, and the port one of its HTTP ports); the instance's MachineDO, the authority for
// tickets and app sessions (machine/app-sessions.ts), decides whether it runs and issues the one-time
// ticket. A key that opened an app is checked by the MachineDO on every request against the key set
// this object pushes, so revoking it needs nothing more here. A session is not in any set: this part
// notes which machines each session opened apps on (`app_openers`), and when a session ends
// (sign-out, a password change elsewhere) it tells those machines through the outbox, which a
// sign-out waits for.
import { clock } from "../../core/clock.ts";
import { machineOf, type Env } from "../../core/env.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { machineIdOfInstance } from "../../core/ids.ts";
import type { PortSpec } from "../../core/port-spec.ts";
import { APP_SESSION_TTL_MS, APP_TICKET_TTL_MS } from "../contracts/credential-lifetimes.ts";
import { isEndAppSessionsDirective, type AppOpener } from "../contracts/object-messages.ts";
import type { Delivery } from "../outbox/outbox.ts";
import type { Sql } from "../sql.ts";
import type { AccountRecord } from "./account-record.ts";
import type { Caller } from "./credential-check.ts";
import type { InstanceRow } from "./instance-row.ts";
import { currentKeySet } from "./key-set.ts";
import type { MachineDirectives } from "./machine-directives.ts";

/** A note older than this names no app session that can still be live. */
const OPENER_HORIZON_MS = APP_TICKET_TTL_MS + APP_SESSION_TTL_MS;

const APP_END_PENDING =
  "signed out, but a host has not yet confirmed ending the web apps this session opened; the change is being applied, retry the request to confirm it";

export interface AppOpenerParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  directives: MachineDirectives;
}

export class AppOpeners {
  private readonly parts: AppOpenerParts;

  constructor(parts: AppOpenerParts) {
    this.parts = parts;
  }

  /**
   * A ticket for `port` of the caller's instance `row` (found and visible). Run in the account's queue,
   * with `caller` checked there: a sign-out queued after it then finds the note this writes.
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
    let opener: AppOpener;
    if (caller.kind === "key") {
      opener = { kind: "key", key_sha256: caller.keySha256 };
    } else {
      opener = { kind: "session", session_id: caller.sessionId };
      const nowMs = clock.now();
      this.parts.transaction(() => {
        sql`DELETE FROM app_openers WHERE opened_ms <= ${nowMs - OPENER_HORIZON_MS}`;
        sql`INSERT OR REPLACE INTO app_openers (session_id, machine_id, opened_ms) VALUES (${caller.sessionId}, ${row.machine_id!}, ${nowMs})`;
      });
    }
    return machineOf(this.parts.env, row.machine_id!).issueAppTicket({
      account_id: record.id(), instance_id: row.id, port, opener, key_set: currentKeySet(sql, record.id()),
    });
  }

  /**
   * A sign-out: ends the app sessions `sessionId` opened and waits for their hosts. Without a live
   * session (a retry after a 500), it waits for the ends still pending.
   */
  signedOut(sessionId: string | null): Promise<Failure | null> {
    const { directives } = this.parts;
    const ends = sessionId === null
      ? directives.pending(isEndAppSessionsDirective)
      : this.parts.transaction(() => this.endOpenedBy({ sessionIds: [sessionId] }));
    return directives.confirm(ends, APP_END_PENDING);
  }

  /**
   * A password change ended every session but `keptSessionId`: so do the apps they opened. The
   * password is changed either way, so a host that does not confirm in time is left to the outbox.
   */
  async passwordChanged(keptSessionId: string): Promise<void> {
    await this.parts.directives.deliverNow(this.parts.transaction(() => this.endOpenedBy({ allBut: keptSessionId })));
  }

  /**
   * Inside a transaction, for sessions that have just ended: queues the end of the app sessions they
   * opened for each machine they opened apps on, and forgets the notes.
   */
  private endOpenedBy(which: { sessionIds: string[] } | { allBut: string }): Delivery[] {
    const { sql, record, directives } = this.parts;
    const notes = sql<{ session_id: string; machine_id: number }>`SELECT session_id, machine_id FROM app_openers`
      .filter((note) => ("sessionIds" in which ? which.sessionIds.includes(note.session_id) : note.session_id !== which.allBut));
    const byMachine = Map.groupBy(notes, (note) => String(note.machine_id));
    for (const note of notes) sql`DELETE FROM app_openers WHERE session_id = ${note.session_id} AND machine_id = ${note.machine_id}`;
    return [...byMachine].map(([machineId, ended]) =>
      directives.enqueue(machineId, { kind: "end_app_sessions", account_id: record.id(), session_ids: ended.map((note) => note.session_id) }));
  }
}
