// Checks the caller a request presents to its AccountDO: an API key (Authorization: Bearer), or a
// person the Worker vouches for once their PersonDO admitted their session (the gpr_session cookie);
// and that the caller's role is one the route admits (contracts/members.ts). Both are checked on the
// same call as the operation they allow, so a revoked key, an ended membership or a demotion holds from
// the very next call; what one opens that lasts (a web app, a terminal, an SSH connection, a log
// stream) is noted with it as its opener, and ends with it (credential-ends.ts, key-set.ts).
import { apiKeys } from "../../../core/credentials.ts";
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { sha256Hex } from "../../../core/hash.ts";
import { roleRefusalMessage, type Credential, type Role } from "../../contracts/members.ts";
import type { Opener } from "../../contracts/opener.ts";
import { callerRefused } from "../../contracts/refusals.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import { findLiveKey } from "./keys.ts";

const NOT_A_MEMBER = "you are not a member of this account (any more): switch to one of yours (POST /v1/auth/switch)";

export type Caller = (
  | { kind: "key"; keySha256: string }
  | { kind: "person"; userId: string; sessionId: string }
) & { role: Role };

/** How the account knows a member's role, and a key's (its maker's; all rights for a key without one). */
export interface RoleSource {
  memberRole(userId: string): Role | null;
  keyRole(keySha256: string): Role | null;
}

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

  /** Who `credential` is, with their role, or null when it is no live key, session or member of this account (or there is no account). */
  async who(credential: Credential): Promise<Caller | null> {
    return this.record.info() === undefined ? null : checkCredential(this.sql, this.roles, credential, clock.now());
  }

  /**
   * The caller if the route admits them; else 401 (no such key or session), or 403 `forbidden`: a person
   * who is not (or no longer) a member, whose session stays good for their other accounts, or a role
   * the route does not admit, naming the roles that may.
   */
  async admitted(credential: Credential): Promise<{ caller: Caller } | { refused: Failure }> {
    const caller = await this.who(credential);
    if (!caller && credential.person && this.record.info() !== undefined) return { refused: fail("forbidden", NOT_A_MEMBER) };
    if (!caller) return { refused: callerRefused() };
    if (!credential.may.includes(caller.role)) return { refused: fail("forbidden", roleRefusalMessage(credential.may, caller.role)) };
    return { caller };
  }

  /** The refusal of `credential` for its route, or null when it may. */
  async refusal(credential: Credential): Promise<Failure | null> {
    const admitted = await this.admitted(credential);
    return "refused" in admitted ? admitted.refused : null;
  }
}

async function checkCredential(sql: Sql, roles: RoleSource, { token, person }: Credential, nowMs: number): Promise<Caller | null> {
  if (person) {
    const role = roles.memberRole(person.user_id);
    return role === null ? null : { kind: "person", userId: person.user_id, sessionId: person.session_id, role };
  }
  if (token === undefined) return null;
  if (apiKeys.ownerOf(token) !== null) {
    const keySha256 = await sha256Hex(token);
    const role = findLiveKey(sql, keySha256, iso(nowMs)) ? roles.keyRole(keySha256) : null;
    return role === null ? null : { kind: "key", keySha256, role };
  }
  return null;
}
