// People, accounts and roles, as the objects promise each other. A person (PersonDO: email, password,
// sessions, which accounts they belong to) and an account (AccountDO: balance, instances, keys, its
// members and their roles) are separate; the AccountDO is the authority for who is a member and with
// which role, so a removal or a demotion holds from the account's next call on. The Worker checks a
// session with its person's object and vouches for the person to the account (`PersonCaller`); an API
// key is checked by its account itself, and acts with the role of the member who made it (all rights
// for a key made before teams, or by the operator).
import { z } from "zod";
import type { Scope } from "./scopes.ts";

export const ROLES = ["owner", "admin", "developer", "billing", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

/** Who may reach an instance's insides (the proxy with a key, SSH, the terminal, files, web apps): what the route table calls WORKERS. */
export const INSTANCE_USE_ROLES: readonly Role[] = ["owner", "admin", "developer"];

/** `usr-` and 16 base32 characters. A person made from an account of before teams: `usr-` and that account's 16 (personOfLegacyAccount). */
export const USER_ID = /^usr-[a-z2-7]{16}$/;

/** The person who was an account's one login before teams: same 16 characters, so either id names the other. */
export const personOfLegacyAccount = (accountId: string): string => `usr-${accountId.slice("acc-".length)}`;

/** A signed-in person, vouched for by the Worker once the person's PersonDO admitted their session. */
export interface PersonCaller {
  user_id: string;
  session_id: string;
  email: string;
}

/**
 * What a caller presents to its AccountDO with each call: an API key (or, for the proxy, an instance's
 * token) or a vouched person, and the roles the route admits (workers/api/roles/route-roles.ts). The
 * AccountDO checks both on the same call as the operation: a caller without one of `may` gets 403
 * `forbidden` naming the roles that may, a key whose scopes do not grant `needs` 403 naming the scope.
 */
export interface Credential {
  token?: string;
  person?: PersonCaller;
  may: readonly Role[];
  /** The scope the route needs of an API key (contracts/scopes.ts); null: any live key. */
  needs: Scope | null;
  /** The client's address as the Worker saw it (CF-Connecting-IP), for the audit log; null where there is none. */
  ip: string | null;
}

/** GET /v1/members' item. */
export interface MemberView {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
  /** The member's last request to this account, to the minute; null before their first. */
  last_seen_at: string | null;
}

/** A pending invitation; `url` only in the answer to its creation (the token is shown once). */
export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_at: string;
  url?: string;
}

/** One of a person's accounts as /v1/me lists it. */
export interface AccountMembership {
  id: string;
  name: string;
  role: Role;
}

/** An invitation's token checked by its account: who it is for, before a person is made or joins. */
export interface InvitationFor {
  invitation_id: string;
  account_id: string;
  email: string;
  role: Role;
}

/** 403 `forbidden` for a caller whose role is not one of `may`. */
export function roleRefusalMessage(may: readonly Role[], role: Role | null): string {
  const who = role === null ? "this credential" : `the role ${role}`;
  return `${who} may not do this: it needs the role ${may.join(", ").replace(/, ([^,]*)$/, " or $1")}`;
}
