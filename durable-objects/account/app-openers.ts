// Opening an instance web app for a caller of this account, and ending what a browser session
// opened when the session ends. The AccountDO admits the caller (a key or a session) and the
// instance (its own, running, and the port one of its HTTP ports); the instance's MachineDO, the
// authority for tickets and app sessions (machine/app-sessions.ts), issues the one-time ticket. A key
// that opened an app is checked by the MachineDO on every request against the key set this object
// pushes, so revoking it needs nothing more here. A session is not in any set: this object notes which
// machines each session opened apps on (`app_openers`), and when a session ends (sign-out, a password
// change elsewhere) it tells those machines through the outbox, which a sign-out waits for.
import { fail, type Failure } from "../../core/errors.ts";
import { machineIdOfInstance } from "../../core/ids.ts";
import type { PortSpec } from "../../core/port-spec.ts";
import { isEndAppSessionsDirective, type AppOpener, type MachineDirective } from "../contracts/object-messages.ts";
import { APP_SESSION_TTL_MS, APP_TICKET_TTL_MS } from "../contracts/credential-lifetimes.ts";
import type { Delivery, Outbox } from "../outbox/outbox.ts";
import type { Sql } from "../sql.ts";
import type { Caller } from "./credential-check.ts";
import type { AccountContext } from "./account-context.ts";
import type { InstanceRow } from "./instance-row.ts";
import { currentKeySet } from "./key-set.ts";

/** A note older than this names no app session that can still be live. */
const OPENER_HORIZON_MS = APP_TICKET_TTL_MS + APP_SESSION_TTL_MS;

export const APP_END_PENDING =
  "signed out, but a host has not yet confirmed ending the web apps this session opened; the change is being applied, retry the request to confirm it";

export function createAppOpenersTable(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS app_openers (session_id TEXT NOT NULL, machine_id INTEGER NOT NULL, opened_ms INTEGER NOT NULL,
    PRIMARY KEY (session_id, machine_id))`;
}

/**
 * A ticket for `port` of the caller's instance `row` (found and visible). Run in the account's queue,
 * with `caller` checked there: a sign-out queued after it then finds the note this writes.
 */
export async function openApp(ctx: AccountContext, caller: Caller, row: InstanceRow, port: number): Promise<{ ok: true; ticket: string; expires_ms: number } | Failure> {
  const ports = JSON.parse(row.ports) as PortSpec[];
  if (!ports.some((spec) => spec.port === port && spec.kind === "http")) return fail("not_found", `instance ${row.id} has no HTTP port ${port}`);
  if (row.status !== "running") return fail("not_running", `instance ${row.id} is ${row.status}, not running`);
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
    const nowMs = ctx.clock.now();
    ctx.transaction(() => {
      ctx.sql`DELETE FROM app_openers WHERE opened_ms <= ${nowMs - OPENER_HORIZON_MS}`;
      ctx.sql`INSERT OR REPLACE INTO app_openers (session_id, machine_id, opened_ms) VALUES (${caller.sessionId}, ${row.machine_id!}, ${nowMs})`;
    });
  }
  return ctx.env.MACHINES.getByName(String(row.machine_id)).issueAppTicket({
    account_id: ctx.accountId, instance_id: row.id, port, opener, key_set: currentKeySet(ctx.sql, ctx.accountId),
  });
}

/**
 * Inside a transaction, for sessions that have just ended: queues the end of the app sessions they
 * opened for each machine they opened apps on, and forgets the notes. `which` names the sessions, or
 * every session but one (a password change keeps its own).
 */
export function endAppsOpenedBy(sql: Sql, outbox: Outbox<MachineDirective>, accountId: string, which: { sessionIds: string[] } | { allBut: string }): Delivery[] {
  const notes = sql<{ session_id: string; machine_id: number }>`SELECT session_id, machine_id FROM app_openers`
    .filter((note) => ("sessionIds" in which ? which.sessionIds.includes(note.session_id) : note.session_id !== which.allBut));
  const byMachine = Map.groupBy(notes, (note) => String(note.machine_id));
  for (const note of notes) sql`DELETE FROM app_openers WHERE session_id = ${note.session_id} AND machine_id = ${note.machine_id}`;
  return [...byMachine].map(([machineId, ended]) =>
    outbox.enqueue(machineId, { kind: "end_app_sessions", account_id: accountId, session_ids: ended.map((note) => note.session_id) }));
}

/** What a retried sign-out waits for: the ends of app sessions still being delivered. */
export const pendingAppEnds = (outbox: Outbox<MachineDirective>): Delivery[] => outbox.pending(isEndAppSessionsDirective);
