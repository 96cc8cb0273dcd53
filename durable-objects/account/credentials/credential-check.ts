// Checks the caller a request presents to its AccountDO: an API key (Authorization: Bearer), or a
// person the Worker vouches for once their PersonDO admitted their session (the gpr_session cookie);
// that the caller's role is one the route admits (contracts/members.ts); and for a key, that it has not
// expired (at the exact second, on this object's clock), that its scopes grant the scope the route needs
// (contracts/scopes.ts) and, for a key kept to some instances, that the instance is one of them (any
// other answers 404 as if absent). All are checked on the same call as the operation they allow, so a
// revoked or expired key, an ended membership or a demotion holds from the very next call; what one opens that lasts (a web app, a terminal, an SSH connection, a log
// stream) is noted with it as its opener, and ends with it (credential-ends.ts, key-set.ts).
import { apiKeys } from "../../../core/credentials.ts";
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { sha256Hex } from "../../../core/hash.ts";
import type { KeyRights } from "../../contracts/api-keys.ts";
import { roleRefusalMessage, type Credential, type Role } from "../../contracts/members.ts";
import type { Opener } from "../../contracts/opener.ts";
import { callerRefused } from "../../contracts/refusals.ts";
import type { Sql } from "../../sql.ts";
import { grants, scopeRefusalMessage, type Scope } from "../../contracts/scopes.ts";
import type { AccountRecord } from "../account-record.ts";
import { noInstance } from "../instances/instance-views.ts";
import { findLiveKey } from "./keys.ts";

/** A key kept to some instances cannot reach one it would launch. */
const KEPT_TO_INSTANCES = "this API key reaches only its instance_ids: it may not launch another instance";

const NOT_A_MEMBER = "you are not a member of this account (any more): switch to one of yours (POST /v1/auth/switch)";

export type Caller = (
  | { kind: "key"; keySha256: string; rights: KeyRights }
  | { kind: "person"; userId: string; sessionId: string }
) & { role: Role };

/** How the account knows a member's role, and a key's (its maker's; all rights for a key without one). */
export interface RoleSource {
  memberRole(userId: string): Role | null;
  keyRole(keySha256: string): Role | null;
}

/** Whether `caller` reaches instance `id`: a key kept to some instances reaches those alone. */
export const reaches = (caller: Caller, id: string): boolean =>
  caller.kind !== "key" || caller.rights.instance_ids === null || caller.rights.instance_ids.includes(id);

/** The caller as the opener of what it opens (opener.ts): a person's session is a session. */
export function openerOf(caller: Caller): Opener {
  return caller.kind === "key" ? { kind: "key", key_sha256: caller.keySha256 } : { kind: "session", session_id: caller.sessionId };
}

export class Callers {
  private readonly sql: Sql;
  private readonly record: AccountRecord;
  private readonly roles: RoleSource;

  constructor(sql: Sql, record: AccountRecord, roles: RoleSource) {
    this.sql = sql;
    this.record = record;
    this.roles = roles;
  }

  /**
   * The caller if the route admits them; else 401 (no such key or session, or an expired key, saying
   * when), or 403 `forbidden`: a person who is not (or no longer) a member, whose session stays good for
   * their other accounts, a key whose scopes do not grant `credential.needs` (or `alsoNeeds`), naming
   * the scope, or a role the route does not admit, naming the roles that may. `instanceId`: the instance
   * the call is about, 404 for a key kept to other instances; null: one it launches, 403 for such a key.
   */
  async admitted(credential: Credential, instanceId?: string | null, alsoNeeds?: Scope): Promise<{ caller: Caller } | { refused: Failure }> {
    const found = this.record.info() === undefined ? null : await checkCredential(this.sql, this.roles, credential, clock.now());
    if (!found && credential.person && this.record.info() !== undefined) return { refused: fail("forbidden", NOT_A_MEMBER) };
    if (!found) return { refused: callerRefused() };
    if ("ok" in found) return { refused: found };
    const caller = found;
    if (caller.kind === "key") {
      const needed = [credential.needs, alsoNeeds].filter((scope): scope is Scope => scope !== null && scope !== undefined);
      const lacking = needed.find((scope) => !grants(caller.rights.scopes, scope));
      if (lacking) return { refused: fail("forbidden", scopeRefusalMessage(lacking)) };
    }
    if (!credential.may.includes(caller.role)) return { refused: fail("forbidden", roleRefusalMessage(credential.may, caller.role)) };
    if (instanceId === null && caller.kind === "key" && caller.rights.instance_ids !== null) return { refused: fail("forbidden", KEPT_TO_INSTANCES) };
    if (instanceId && !reaches(caller, instanceId)) return { refused: noInstance(instanceId) };
    return { caller };
  }

  /** The refusal of `credential` for its route (and instance), or null when it may. */
  async refusal(credential: Credential, instanceId?: string | null): Promise<Failure | null> {
    const admitted = await this.admitted(credential, instanceId);
    return "refused" in admitted ? admitted.refused : null;
  }
}

async function checkCredential(sql: Sql, roles: RoleSource, { token, person }: Credential, nowMs: number): Promise<Caller | Failure | null> {
  if (person) {
    const role = roles.memberRole(person.user_id);
    return role === null ? null : { kind: "person", userId: person.user_id, sessionId: person.session_id, role };
  }
  if (token === undefined) return null;
  if (apiKeys.ownerOf(token) !== null) {
    const keySha256 = await sha256Hex(token);
    const rights = findLiveKey(sql, keySha256, iso(nowMs));
    if (rights?.expires_at && nowMs >= Date.parse(rights.expires_at)) return fail("unauthorized", `the key expired at ${rights.expires_at}`);
    const role = rights ? roles.keyRole(keySha256) : null;
    return role === null || rights === null ? null : { kind: "key", keySha256, rights, role };
  }
  return null;
}
