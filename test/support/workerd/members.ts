// Accounts with members for workerd tests: an account made at sign-up with its owner, and people who
// join it with a role through an invitation accepted at the AccountDO, each with an API key they made
// (which acts with their role), so every role can call the real Worker.
import { env } from "cloudflare:workers";
import { newAccountId, randomBase32 } from "../../../core/ids.ts";
import { ROLES, type Credential, type PersonCaller, type Role } from "../../../durable-objects/contracts/members.ts";
import { SCOPE_ROLES } from "../../../workers/api/roles/route-roles.ts";
import { keyCredential } from "./api-client.ts";
import { uniqueEmail } from "./session-client.ts";

export interface Person extends PersonCaller {
  /** An API key they made in the account: it acts with their role there. */
  key: string;
}

export const newPerson = (tag = "member"): PersonCaller => ({ user_id: `usr-${randomBase32(16)}`, session_id: `ses-${randomBase32(12)}`, email: uniqueEmail(tag) });

/** The person as the Worker vouches for them to an account, for every role's route. */
export const personCredential = (person: PersonCaller, may: readonly Role[] = ROLES): Credential => ({ person, may, needs: null, ip: null });

export const accountStub = (accountId: string) => env.ACCOUNTS.getByName(accountId);

/** A key `person` makes in `accountId`. */
export async function keyOf(accountId: string, person: PersonCaller): Promise<string> {
  const made = await accountStub(accountId).createKeyFor(personCredential(person), { name: "member's" }, SCOPE_ROLES);
  if (!made.ok) throw new Error(`key of ${person.user_id}: ${made.message}`);
  return made.key.key;
}

/** An account made at sign-up (AccountDO.createForOwner) with `credit` micro-dollars; its owner with a key. */
export async function ownedAccount(credit = 100_000_000): Promise<{ id: string; owner: Person }> {
  const id = newAccountId();
  const owner = newPerson("owner");
  const created = await accountStub(id).createForOwner({ accountId: id, user_id: owner.user_id, email: owner.email, creditMicros: credit });
  if (!created.ok) throw new Error(`account: ${created.message}`);
  return { id, owner: { ...owner, key: await keyOf(id, owner) } };
}

/** An invitation's token for `email` with `role`, made by the caller of `inviterKey`. */
export async function invitationToken(accountId: string, inviterKey: string, email: string, role: Role): Promise<string> {
  const invited = await accountStub(accountId).invite(keyCredential(inviterKey), { email, role });
  if (!invited.ok) throw new Error(`invitation: ${invited.message}`);
  return invited.token;
}

/** A new person (or `person`) who joins `accountId` with `role` through an invitation, with a key they made there. */
export async function joined(accountId: string, inviterKey: string, role: Role, person = newPerson(role)): Promise<Person> {
  const token = await invitationToken(accountId, inviterKey, person.email, role);
  const accepted = await accountStub(accountId).acceptInvitation(token, person);
  if (!accepted.ok) throw new Error(`accept: ${accepted.message}`);
  return { ...person, key: await keyOf(accountId, person) };
}
