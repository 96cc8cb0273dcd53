// How a person joins the account: a manager invites an email with a role (only an owner invites an
// owner), and the person with that email accepts the link once, in one transaction that uses the
// invitation and adds them (a member already keeps their role).
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import type { AccountMembership, InvitationFor, InvitationView, Role } from "../../contracts/members.ts";
import type { AccountRecord } from "../account-record.ts";
import type { Caller } from "../credentials/credential-check.ts";
import { invitationHash, Invitations, newInvitationToken } from "./invitations.ts";
import type { Members } from "./members.ts";
import type { Sql } from "../../sql.ts";
import { recordAudit } from "../audit/audit-log.ts";

export interface JoiningParts {
  sql: Sql;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
}

export class Joining {
  readonly invitations: Invitations;
  private readonly parts: JoiningParts;
  private readonly members: Members;

  constructor(parts: JoiningParts, members: Members, invitations: Invitations) {
    this.parts = parts;
    this.members = members;
    this.invitations = invitations;
  }

  /** The invitation and its token, shown this once. */
  async invite(actor: Caller, invited: { email: string; role: Role }): Promise<{ ok: true; invitation: InvitationView; token: string } | Failure> {
    if (invited.role === "owner" && actor.role !== "owner") return fail("forbidden", "only an owner may invite an owner");
    const { token, hash } = await newInvitationToken(this.parts.record.id());
    return this.parts.transaction(() => {
      if (this.members.isMemberEmail(invited.email)) return fail("conflict", `${invited.email} is a member of this account already`);
      const invitation = this.invitations.create(invited, hash, clock.now());
      if ("ok" in invitation) return invitation;
      recordAudit(this.parts.sql, { action: "member.invite", target: { type: "invitation", id: invitation.id }, detail: `${invited.email} as ${invited.role}` });
      return { ok: true as const, invitation, token };
    });
  }

  async invitationFor(token: string): Promise<{ ok: true; invitation: InvitationFor } | Failure> {
    const found = this.invitations.live(this.parts.record.id(), await invitationHash(this.parts.record.id(), token), clock.now());
    return "ok" in found ? found : { ok: true, invitation: found };
  }

  async accept(token: string, person: { user_id: string; email: string }): Promise<{ ok: true; account: AccountMembership } | Failure> {
    const { record, transaction } = this.parts;
    const hash = await invitationHash(record.id(), token);
    return transaction(() => {
      const nowMs = clock.now();
      const invitation = this.invitations.live(record.id(), hash, nowMs);
      if ("ok" in invitation) return invitation;
      if (invitation.email !== person.email) return fail("forbidden", "this invitation is for another email");
      this.invitations.use(invitation.invitation_id, iso(nowMs));
      this.members.add({ user_id: person.user_id, email: person.email, role: invitation.role }, iso(nowMs));
      recordAudit(this.parts.sql, { action: "member.join", target: { type: "user", id: person.user_id }, detail: `${person.email} as ${invitation.role}` });
      return { ok: true as const, account: this.members.membership(person.user_id, record.info()!)! };
    });
  }
}
