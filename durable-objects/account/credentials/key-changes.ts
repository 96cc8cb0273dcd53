// The account's API keys as its callers and the operator change them: creating and revoking a key,
// each with the key set pushed to the MachineDOs that admit the proxy (key-set.ts), and a key the set
// never held told ended to them (credential-ends.ts), so what it opened ends as well. The AccountDO runs
// both in its queue, so a launch in flight cannot reserve with a set they change. A revocation is
// answered once every holder has acknowledged it.
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { isKeySetDirective } from "../../contracts/object-messages.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import { keyEnded } from "./credential-ends.ts";
import { currentKeySet, heldHashes, pushKeySet } from "./key-set.ts";
import { createKey, hashOfKey, isRevoked, listKeys, revokeKey, type CreatedKey, type KeySummary, type NewKey } from "./keys.ts";
import type { MachineDirectives } from "../machine-directives.ts";

const REVOKE_PENDING = "the key is revoked, but a host of this account's instances has not confirmed it yet; the change is being applied, retry the request to confirm it";

export interface KeyChangeParts {
  sql: Sql;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  directives: MachineDirectives;
}

export class KeyChanges {
  private readonly parts: KeyChangeParts;

  constructor(parts: KeyChangeParts) {
    this.parts = parts;
  }

  /** The live keys (never the keys themselves: only their prefixes). */
  list(): KeySummary[] {
    return listKeys(this.parts.sql);
  }

  /** `made`: checked (key-rights.ts); `createdBy`: the member who makes it (null: the operator). */
  async create(made: NewKey, createdBy: string | null): Promise<{ ok: true; key: CreatedKey } | Failure> {
    const { sql, record, directives } = this.parts;
    const key = await createKey(sql, record.id(), made, iso(clock.now()), createdBy);
    if ("ok" in key) return key;
    const pushes = this.parts.transaction(() => pushKeySet(sql, directives, record.id()));
    // Waited for, so the key opens the proxy on the fast path at once; a host that does not answer in
    // time admits it through the slow path (AccountDO.openProxy) meanwhile, so the key is shown anyway.
    await directives.deliverNow(pushes);
    return { ok: true, key };
  }

  /** A revocation that answered 500 (a host did not acknowledge in time) and is retried waits for it again. */
  async revoke(keyId: string, notFound: string): Promise<{ ok: true } | Failure> {
    const { sql, record, directives } = this.parts;
    const at = iso(clock.now());
    const pushes = this.parts.transaction(() => {
      const hash = hashOfKey(sql, keyId);
      const held = hash !== null && heldHashes(currentKeySet(sql, record.id())).includes(hash);
      if (!revokeKey(sql, keyId, at)) return null;
      return [...pushKeySet(sql, directives, record.id()), ...(held ? [] : keyEnded(this.parts, hash!))];
    });
    const awaited = pushes ?? (isRevoked(sql, keyId) ? directives.pending(isKeySetDirective) : []);
    if (pushes === null && awaited.length === 0) return fail("not_found", notFound);
    return (await directives.confirm(awaited, REVOKE_PENDING)) ?? { ok: true };
  }
}
