// A member's role changed or the member removed, by a caller the route admitted (owner or admin). Only
// an owner makes, demotes or removes an owner, and the last owner stays one. A role change re-pushes
// the proxy's key set, as their keys may use instances or no more; a removal revokes the keys they
// made and deletes the membership in one transaction, so their next call and their keys' are refused,
// then tells their person (who moves their sessions off this account) and ends what those sessions
// opened on this account's hosts. Both are answered once every host has the new key set.
import { clock, iso } from "../../../core/clock.ts";
import { personOf, type Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { errorText, log } from "../../../core/log.ts";
import type { MemberView, Role } from "../../contracts/members.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import type { Caller } from "../credentials/credential-check.ts";
import { keyEnded, type CredentialEnds } from "../credentials/credential-ends.ts";
import { currentKeySet, heldHashes, pushKeySet } from "../credentials/key-set.ts";
import type { MachineDirectives } from "../machine-directives.ts";
import { hasLiveKeys, revokeKeysOf } from "./member-keys.ts";
import { recordAudit } from "../audit/audit-log.ts";
import { Members, toView } from "./members.ts";

const KEYS_PENDING =
  "the change is made, but a host of this account's instances has not confirmed the new key set yet; it is being applied, retry the request to confirm it";

export interface MemberChangeParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  directives: MachineDirectives;
  ends: CredentialEnds;
}

export class MemberChanges {
  private readonly parts: MemberChangeParts;
  private readonly members: Members;

  constructor(parts: MemberChangeParts, members: Members) {
    this.parts = parts;
    this.members = members;
  }

  async changeRole(actor: Caller, userId: string, role: Role): Promise<{ ok: true; member: MemberView } | Failure> {
    const { sql, transaction, directives, record } = this.parts;
    const changed = transaction(() => {
      const member = this.members.find(userId);
      if (!member) return noMember(userId);
      const refused = ownerRule(actor, member.role, role, role === "owner" ? "make" : "demote") ?? lastOwnerRule(this.members, member.role, role);
      if (refused) return refused;
      this.members.setRole(userId, role);
      if (member.role !== role) recordAudit(sql, { action: "member.role", target: { type: "user", id: userId }, detail: `${member.email}: ${member.role} → ${role}` });
      return { pushes: member.role !== role && hasLiveKeys(sql, userId) ? pushKeySet(sql, directives, record.id()) : [] };
    });
    if ("ok" in changed) return changed;
    return (await directives.confirm(changed.pushes, KEYS_PENDING)) ?? { ok: true, member: toView(this.members.find(userId)!) };
  }

  /** `revoked_keys`: how many keys of theirs were revoked. */
  async remove(actor: Caller, userId: string): Promise<{ ok: true; revoked_keys: number } | Failure> {
    const { sql, env, transaction, directives, record, ends } = this.parts;
    const removed = transaction(() => {
      const member = this.members.find(userId);
      if (!member) return noMember(userId);
      const refused = ownerRule(actor, member.role, null, "remove") ?? lastOwnerRule(this.members, member.role, null);
      if (refused) return refused;
      const held = heldHashes(currentKeySet(sql, record.id()));
      const revoked = revokeKeysOf(sql, userId, iso(clock.now()));
      this.members.delete(userId);
      recordAudit(sql, { action: "member.remove", target: { type: "user", id: userId }, detail: `${member.email} (${member.role}), ${revoked.length} API key(s) revoked` });
      // A key the hosts' set never held (without instances:use) is told ended, as its own revocation tells it (key-changes.ts).
      const unheld = revoked.filter((hash) => !held.includes(hash)).flatMap((hash) => keyEnded(this.parts, hash));
      return { revoked: revoked.length, pushes: revoked.length > 0 ? [...pushKeySet(sql, directives, record.id()), ...unheld] : [] };
    });
    if ("ok" in removed) return removed;
    // Their person moves the sessions that were on this account to another of theirs, and names them. The
    // removal holds without it (this object refuses them from now on); only their open terminals and web
    // apps wait for the person's object, until their sessions end.
    const sessions = await personOf(env, userId).leftAccount(record.id()).catch((error: unknown) => {
      log("warn", "a removed member's person could not be told", { account_id: record.id(), user_id: userId, error: errorText(error) });
      return [];
    });
    await ends.sessionsEnded(sessions);
    return (await directives.confirm(removed.pushes, KEYS_PENDING)) ?? { ok: true, revoked_keys: removed.revoked };
  }
}

/** 403 for an admin who would make, demote or remove an owner. */
function ownerRule(actor: Caller, current: Role, next: Role | null, verb: "make" | "demote" | "remove"): Failure | null {
  if (actor.role === "owner" || (current !== "owner" && next !== "owner")) return null;
  return fail("forbidden", `only an owner may ${verb} an owner`);
}

/** 409 for the last owner's demotion or removal. */
function lastOwnerRule(members: Members, current: Role, next: Role | null): Failure | null {
  if (current !== "owner" || next === "owner" || members.owners() > 1) return null;
  return fail("conflict", `the account's last owner cannot be ${next === null ? "removed" : "demoted"}: make another member an owner first`);
}

const noMember = (userId: string): Failure => fail("not_found", `no member ${userId} in this account`);
