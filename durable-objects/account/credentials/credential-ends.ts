// The end of the account's browser sessions and SSH keys, told to every host of its instances. This
// object (the AccountDO) is the authority for which sessions and SSH keys are live (sessions.ts,
// ssh-keys.ts); each host's MachineDO is the authority for what they opened there, and ends it as the
// directive arrives: the web apps a session opened (machine/app-sessions.ts), and the streams either
// opened, terminals, log streams, proxied WebSockets and SSH connections (machine/stream-credentials.ts).
// An API key's end takes the same way, as a key set without it (key-set.ts), and for a key the set never
// held, as an end listing it (keyEnded). Each end is delivered at once; a sign-out and an SSH key's
// removal are answered once every host has confirmed it.
import { fail, type Failure } from "../../../core/errors.ts";
import { isCredentialsEndedDirective, type CredentialsEnded, type MachineDirective } from "../../contracts/object-messages.ts";
import type { Delivery } from "../../outbox/outbox.ts";
import type { AccountRecord } from "../account-record.ts";
import type { MachineDirectives } from "../machine-directives.ts";

const SIGN_OUT_PENDING =
  "signed out, but a host has not yet confirmed ending what this session opened there; the change is being applied, retry the request to confirm it";
const SSH_KEY_PENDING =
  "the SSH key is removed, but a host of this account's instances has not yet confirmed ending the connections it opened; the change is being applied, retry the request to confirm it";

export interface CredentialEndParts {
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  directives: MachineDirectives;
}

export class CredentialEnds {
  private readonly parts: CredentialEndParts;

  constructor(parts: CredentialEndParts) {
    this.parts = parts;
  }

  /**
   * A sign-out ended `sessionIds`: waits for every host to confirm. With none (a retry after a 500:
   * the session is gone already), it waits for the session ends still pending.
   */
  signedOut(sessionIds: string[]): Promise<Failure | null> {
    const { directives, transaction } = this.parts;
    const ends = sessionIds.length === 0
      ? directives.pending((directive) => isCredentialsEndedDirective(directive) && directive.session_ids.length > 0)
      : transaction(() => this.enqueue({ session_ids: sessionIds, ssh_key_ids: [] }));
    return directives.confirm(ends, SIGN_OUT_PENDING);
  }

  /**
   * A person's sessions `sessionIds` ended elsewhere (a password change, a sign-out at their person, their
   * removal from this account). That is done either way, so a host that does not confirm in time is left to the outbox.
   */
  async sessionsEnded(sessionIds: string[]): Promise<void> {
    await this.parts.directives.deliverNow(this.parts.transaction(() => this.enqueue({ session_ids: sessionIds, ssh_key_ids: [] })));
  }

  /**
   * The removal of SSH key `keyId`: `remove` deletes it (in the transaction that queues its end; false
   * when the account has no such key), then every host confirms. A removal that answered 500 and is
   * retried waits for it again; `notFound` when there is nothing to wait for.
   */
  async sshKeyRemoved(keyId: string, remove: () => boolean, notFound: string): Promise<{ ok: true } | Failure> {
    const { directives, transaction } = this.parts;
    const ends = transaction(() => (remove() ? this.enqueue({ session_ids: [], ssh_key_ids: [keyId] }) : null));
    const awaited = ends ?? directives.pending((directive) => endsSshKey(directive, keyId));
    if (ends === null && awaited.length === 0) return fail("not_found", notFound);
    return (await directives.confirm(awaited, SSH_KEY_PENDING)) ?? { ok: true };
  }

  /** Inside the transaction that ends them: queued for every host of the account. */
  private enqueue(ended: { session_ids: string[]; ssh_key_ids: string[] }): Delivery[] {
    if (ended.session_ids.length === 0 && ended.ssh_key_ids.length === 0) return [];
    return endedEverywhere(this.parts, ended);
  }
}

/**
 * Inside the transaction that revokes API key `keySha256`, when the hosts' key set did not hold it (a new
 * set without it drops nothing there): its end, queued for every host of the account.
 */
export const keyEnded = (parts: Pick<CredentialEndParts, "record" | "directives">, keySha256: string): Delivery[] =>
  endedEverywhere(parts, { session_ids: [], ssh_key_ids: [], key_sha256s: [keySha256] });

function endedEverywhere({ directives, record }: Pick<CredentialEndParts, "record" | "directives">, ended: Omit<CredentialsEnded, "kind" | "account_id">): Delivery[] {
  return directives.hosts().map((machineId) => directives.enqueue(machineId, { kind: "credentials_ended", account_id: record.id(), ...ended }));
}

function endsSshKey(directive: MachineDirective, keyId: string): boolean {
  return isCredentialsEndedDirective(directive) && directive.kind === "credentials_ended" && directive.ssh_key_ids.includes(keyId);
}
