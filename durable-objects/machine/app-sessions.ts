// Instance web apps, each (instance, port) on an origin of its own: the one-time tickets that open
// them and the app sessions (the `gpr_app` cookie) a ticket becomes. The MachineDO hosting the
// instance is the authority for both: it already admits every proxied request of its containers
// without another hop, so an app request costs what a path-proxy request costs and no storage write.
// Only the SHA-256 of a ticket or a session is stored.
// A session belongs to its instance, its port and the container's run (the generation the container
// had when the ticket was issued): a stop leaves it (the app answers 409 not_running), a start that
// begins a new run and a destroy end it (401). It lives at most 12 hours, and never longer than
// whatever opened it: an API key must still be in the account's key set on every request, and the
// AccountDO ends the app sessions of a browser session when that session ends (endOpenedBy). The
// app's WebSockets end with what opened the app too (openerOf, stream-credentials.ts).
import { clock } from "../../core/clock.ts";
import { appSessionTokens, appTickets } from "../../core/credentials.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { constantTimeEqual, sha256Hex } from "../../core/hash.ts";
import { APP_SESSION_TTL_MS, APP_TICKET_TTL_MS } from "../contracts/credential-lifetimes.ts";
import type { AppTicketRequest } from "../contracts/object-messages.ts";
import type { Opener } from "../contracts/opener.ts";
import type { ProxyRefusal } from "../contracts/proxy-request.ts";
import { REOPEN_APP } from "../contracts/refusals.ts";
import type { Sql } from "../sql.ts";
import type { AccountKeySets } from "./account-key-sets.ts";
import type { ContainerLedger, ContainerRow } from "./container-ledger.ts";
import { runningRefusal } from "./reachability.ts";

/** A ticket or a session as stored: whose it is, what it opens, and until when. */
interface Grant {
  hash: string;
  kind: "ticket" | "session";
  instance_id: string;
  port: number;
  account_id: string;
  opener_kind: Opener["kind"];
  /** The key's SHA-256 or the session's id. */
  opener_id: string;
  /** The container's generation when the ticket was issued: its run. */
  generation: number;
  expires_ms: number;
}

export interface AppSessionParts {
  sql: Sql;
  ledger: ContainerLedger;
  keySets: AccountKeySets;
  /** Why `opener` of `accountId` has ended here (stream-credentials.ts, StreamCredentials.refusal), or null. */
  endedHere(accountId: string, opener: Opener): string | null;
}

export class AppSessions {
  private readonly parts: AppSessionParts;

  constructor(parts: AppSessionParts) {
    this.parts = parts;
    parts.sql`CREATE TABLE IF NOT EXISTS app_grants (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, instance_id TEXT NOT NULL,
      port INTEGER NOT NULL, account_id TEXT NOT NULL, opener_kind TEXT NOT NULL, opener_id TEXT NOT NULL,
      generation INTEGER NOT NULL, expires_ms INTEGER NOT NULL)`;
    parts.sql`CREATE INDEX IF NOT EXISTS app_grants_by_instance ON app_grants (instance_id)`;
    parts.sql`CREATE INDEX IF NOT EXISTS app_grants_by_expiry ON app_grants (expires_ms)`;
  }

  /** A ticket for an instance the account has checked is its own (AccountDO.openApp), while it runs (reachability.ts). */
  async issueTicket(request: AppTicketRequest): Promise<{ ok: true; ticket: string; expires_ms: number } | Failure> {
    const ticket = appTickets.issue(request.instance_id);
    const hash = await sha256Hex(ticket);
    // From here on synchronous: what is checked is what the ticket is issued for.
    const container = this.parts.ledger.container(request.instance_id);
    if (container && container.account_id !== request.account_id) return fail("not_found", `no instance ${request.instance_id} on its host`);
    const notRunning = runningRefusal(request.instance_id, container);
    if (notRunning) return notRunning;
    // A sign-out racing this opening: the account checked the session before it ended, and its end has
    // been here already, removing grants this one was not yet among. The ticket would outlive it.
    const ended = this.parts.endedHere(request.account_id, request.opener);
    if (ended) return fail("unauthorized", ended);
    this.parts.keySets.apply(request.key_set);
    const nowMs = clock.now();
    this.parts.sql`DELETE FROM app_grants WHERE expires_ms <= ${nowMs}`;
    const expiresMs = nowMs + APP_TICKET_TTL_MS;
    this.insert({
      hash, kind: "ticket", instance_id: request.instance_id, port: request.port, account_id: request.account_id,
      opener_kind: request.opener.kind, opener_id: request.opener.kind === "key" ? request.opener.key_sha256 : request.opener.session_id,
      generation: container!.generation, expires_ms: expiresMs,
    });
    return { ok: true, ticket, expires_ms: expiresMs };
  }

  /** Spends the ticket (whatever the outcome: it is one-time) and opens an app session for its app. */
  async redeemTicket(instanceId: string, port: number, ticketSha256: string): Promise<{ ok: true; token: string; expires_ms: number } | Failure> {
    const token = appSessionTokens.issue(instanceId);
    const hash = await sha256Hex(token);
    // From here on synchronous, so a ticket is spent exactly once.
    const ticket = this.find("ticket", ticketSha256);
    if (!ticket) return fail("unauthorized", `the ticket is unknown or was used already; ${REOPEN_APP}`);
    this.parts.sql`DELETE FROM app_grants WHERE hash = ${ticket.hash}`;
    const nowMs = clock.now();
    if (ticket.expires_ms <= nowMs) return fail("unauthorized", `the ticket expired (a ticket is valid ${APP_TICKET_TTL_MS / 1000} s); ${REOPEN_APP}`);
    if (ticket.instance_id !== instanceId || ticket.port !== port) return fail("unauthorized", `the ticket opens another app; ${REOPEN_APP}`);
    const container = this.parts.ledger.container(instanceId);
    const refusal = this.refusal(ticket, container);
    if (refusal) return fail("unauthorized", refusal);
    const notRunning = runningRefusal(instanceId, container);
    if (notRunning) return notRunning;
    const expiresMs = nowMs + APP_SESSION_TTL_MS;
    this.insert({ ...ticket, hash, kind: "session", expires_ms: expiresMs });
    return { ok: true, token, expires_ms: expiresMs };
  }

  /**
   * Whether the app session `sessionSha256` opens `port` of `instanceId`; null when it does (the
   * container's own state is judged after, as for every proxied request: a stopped one is 409).
   */
  admit(instanceId: string, port: number, sessionSha256: string, container: ContainerRow | undefined): ProxyRefusal | null {
    const session = this.find("session", sessionSha256);
    const refusal = !session
      ? `no app session; ${REOPEN_APP}`
      : session.expires_ms <= clock.now()
        ? `the app session expired (it lasts at most ${APP_SESSION_TTL_MS / 3_600_000} hours); ${REOPEN_APP}`
        : session.instance_id !== instanceId || session.port !== port
          ? "the app session belongs to another app"
          : this.refusal(session, container);
    return refusal === null ? null : { kind: "refused", code: "unauthorized", message: refusal };
  }

  /** The key or session that opened the app the session `sessionSha256` belongs to (admitted: it exists): what its WebSockets end with. */
  openerOf(sessionSha256: string): Opener | null {
    const session = this.find("session", sessionSha256);
    if (!session) return null;
    return session.opener_kind === "key" ? { kind: "key", key_sha256: session.opener_id } : { kind: "session", session_id: session.opener_id };
  }

  /** Ends what the account's ended browser sessions opened: their app sessions and unspent tickets. */
  endOpenedBy(accountId: string, sessionIds: string[]): void {
    for (const sessionId of sessionIds) {
      this.parts.sql`DELETE FROM app_grants WHERE account_id = ${accountId} AND opener_kind = 'session' AND opener_id = ${sessionId}`;
    }
  }

  /** A new run of the container begins, or it is destroyed: the tickets and app sessions of the old one end. */
  endForInstance(instanceId: string): void {
    this.parts.sql`DELETE FROM app_grants WHERE instance_id = ${instanceId}`;
  }

  /**
   * Why a ticket or session no longer opens its app, or null: its run is over (a stop of that run
   * is not: the instance may be started again), or the key that opened it is no longer live.
   */
  private refusal(grant: Grant, container: ContainerRow | undefined): string | null {
    if (!container || container.desired === "destroyed") return `instance ${grant.instance_id} was destroyed`;
    // A stop is the next generation of the run it stops; a start, the one after.
    const run = container.desired === "stopped" ? container.generation - 1 : container.generation;
    if (run !== grant.generation) return `instance ${grant.instance_id} was restarted since; ${REOPEN_APP}`;
    if (grant.opener_kind === "key" && !this.parts.keySets.admits(grant.account_id, grant.opener_id, grant.instance_id, clock.now())) {
      return `the API key that opened the app was revoked or has expired; ${REOPEN_APP}`;
    }
    return null;
  }

  private find(kind: Grant["kind"], hash: string): Grant | undefined {
    const [row] = this.parts.sql<Grant>`SELECT * FROM app_grants WHERE hash = ${hash} AND kind = ${kind}`;
    // Looked up by the hash of a 160-bit secret; the stored value is compared in constant time as well.
    return row && constantTimeEqual(row.hash, hash) ? row : undefined;
  }

  private insert(grant: Grant): void {
    this.parts.sql`INSERT INTO app_grants (hash, kind, instance_id, port, account_id, opener_kind, opener_id, generation, expires_ms)
             VALUES (${grant.hash}, ${grant.kind}, ${grant.instance_id}, ${grant.port}, ${grant.account_id}, ${grant.opener_kind},
                     ${grant.opener_id}, ${grant.generation}, ${grant.expires_ms})`;
  }
}
