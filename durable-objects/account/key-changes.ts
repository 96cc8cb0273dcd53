// Creating and revoking an account's API keys, each with its key set pushed to the MachineDOs that
// admit the proxy (key-set.ts). The AccountDO runs both in its queue, so a launch in flight cannot
// reserve with a set they change. A revocation is answered once every holder has acknowledged it.
import { iso } from "../../core/clock.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { isKeySetDirective } from "../contracts/object-messages.ts";
import type { AccountContext } from "./account-context.ts";
import { pushKeySet } from "./key-set.ts";
import { createKey, isRevoked, revokeKey, type CreatedKey } from "./keys.ts";

const REVOKE_PENDING = "the key is revoked, but a host of this account's instances has not confirmed it yet; the change is being applied, retry the request to confirm it";

export async function createAndPushKey(ctx: AccountContext, name: string): Promise<{ ok: true; key: CreatedKey } | Failure> {
  const key = await createKey(ctx.sql, ctx.accountId, name, iso(ctx.clock.now()));
  if ("ok" in key) return key;
  const pushes = ctx.transaction(() => pushKeySet(ctx.sql, ctx.outbox, ctx.accountId));
  // Waited for, so the key opens the proxy on the fast path at once; a host that does not answer in
  // time admits it through the slow path (AccountDO.openProxy) meanwhile, so the key is shown anyway.
  await ctx.outbox.deliverNow(pushes);
  return { ok: true, key };
}

/** A revocation that answered 500 (a host did not acknowledge in time) and is retried waits for it again. */
export async function revokeAndConfirm(ctx: AccountContext, keyId: string, notFound: string): Promise<{ ok: true } | Failure> {
  const at = iso(ctx.clock.now());
  const pushes = ctx.transaction(() => (revokeKey(ctx.sql, keyId, at) ? pushKeySet(ctx.sql, ctx.outbox, ctx.accountId) : null));
  const awaited = pushes ?? (isRevoked(ctx.sql, keyId) ? ctx.outbox.pending(isKeySetDirective) : []);
  if (pushes === null && awaited.length === 0) return fail("not_found", notFound);
  return (await ctx.confirm(awaited, REVOKE_PENDING)) ?? { ok: true };
}
