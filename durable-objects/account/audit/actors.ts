// Who the audit log names for a change. The AccountDO runs each caller's call (and the operator's) as
// that actor; the parts deep inside, which write the change in their own transaction, record the entry
// there without being handed the caller: the actor travels with the call's async context, so calls that
// interleave while one awaits a MachineDO never take each other's actor. What runs outside any caller
// (the alarm: stops for funds, idle or budget; Stripe's payments) is the system's.
import { AsyncLocalStorage } from "node:async_hooks";
import { sha256Hex } from "../../../core/hash.ts";
import type { AuditActor } from "../../contracts/audit.ts";
import type { Credential } from "../../contracts/members.ts";
import type { Sql } from "../../sql.ts";

export interface Acting {
  actor: AuditActor;
  ip: string | null;
}

export const SYSTEM: Acting = { actor: { type: "system", id: null, label: "system" }, ip: null };
export const OPERATOR: Acting = { actor: { type: "operator", id: null, label: "operator" }, ip: null };

const acting = new AsyncLocalStorage<Acting>();

/** Runs `work` (and everything it awaits) as `who`. */
export function actingAs<T>(who: Acting, work: () => T): T {
  return acting.run(who, work);
}

/** The actor of the call now running; the system outside any. */
export const currentActing = (): Acting => acting.getStore() ?? SYSTEM;

/**
 * The holder of `credential` as the log names them: a person by user id and email, a key by id and name
 * (its prefix when unnamed). Whether they may is the call's own check; a refused call records nothing.
 */
export async function actingFor(sql: Sql, credential: Credential): Promise<Acting> {
  const { person, token, ip } = credential;
  if (person) return { actor: { type: "user", id: person.user_id, label: person.email }, ip };
  const hash = token === undefined ? null : await sha256Hex(token);
  const [key] = sql<{ id: string; name: string; prefix: string }>`SELECT id, name, prefix FROM api_keys WHERE hash = ${hash}`;
  return { actor: { type: "key", id: key?.id ?? null, label: key ? key.name || key.prefix : "unknown key" }, ip };
}

/** A person acting outside a caller's call (accepting an invitation): no address known. */
export const personActing = (person: { user_id: string; email: string }): Acting => ({ actor: { type: "user", id: person.user_id, label: person.email }, ip: null });
