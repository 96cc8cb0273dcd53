// The /me shape, as GET /v1/me, sign-up, sign-in, the switch and an accepted invitation answer it: the
// account the caller acts on with their role (its AccountDO's word), and for a person, who they are and
// every account they belong to (their PersonDO lists them; each account says whether they still are a
// member, and with which role).
import { accountOf, personOf, type Env } from "../../core/env.ts";
import { unwrap } from "../../core/errors.ts";
import { ROLES, type AccountMembership, type Credential, type PersonCaller } from "../../durable-objects/contracts/members.ts";
import { meBody } from "./schemas/account.ts";

/** /me for `credential` on `accountId`. */
export async function meView(env: Env, credential: Credential, accountId: string): Promise<ReturnType<typeof meBody>> {
  const person = credential.person;
  const [read, accounts] = await Promise.all([accountOf(env, accountId).me(credential), person ? accountsOf(env, person.user_id) : null]);
  const { account } = unwrap(read);
  const user = person ? { id: person.user_id, email: person.email } : null;
  return meBody(account, user, accounts ?? [{ id: account.id, name: account.name, role: account.role }]);
}

/** /me for a person just signed in, joined or switched: any of the roles may read it. */
export const meOfPerson = (env: Env, person: PersonCaller, accountId: string) => meView(env, { person, may: ROLES, needs: null, ip: null }, accountId);

async function accountsOf(env: Env, userId: string): Promise<AccountMembership[]> {
  const ids = await personOf(env, userId).accountIds();
  const memberships = await Promise.all(ids.map((id) => accountOf(env, id).membership(userId)));
  return memberships.filter((membership) => membership !== null);
}
