// Which credential opened each long-lived stream of this machine (SSH connections, terminals,
// proxied WebSockets, log streams), so that the end of a credential ends what it opened, within the
// moment its AccountDO's word arrives. The AccountDO is the authority for whether a credential is
// live and says when one ends, through its outbox to every host of the account: a key set without an
// API key (account-key-sets.ts), and sessions and SSH keys in a credentials_ended directive. This
// object is the authority for which streams each opened: the key or session its caller was admitted
// with (machine-do.ts), and for an SSH connection the account SSH key it authenticated with, which
// only the agent's SSH server knows and names (ssh_key_used, ssh-key-use.ts).
//
// An ended credential is remembered here for ENDED_KEPT_MS, in memory as the streams are: an opening
// the account admitted just before the end but that reaches this object after it is refused, and an
// SSH connection opened while its key was on the account that authenticates with it after its
// removal is ended as it says so.
import type { Opener } from "../contracts/opener.ts";

/** Far longer than any opening takes between its account's admission and this object, or an SSH handshake. */
export const ENDED_KEPT_MS = 10 * 60_000;

/** Why a stream ends (the close reason a client reads) or an opening is refused, by what ended. */
export const CREDENTIAL_ENDED = {
  key: "the API key was revoked or has expired",
  session: "the session ended (a sign-out, or a password change)",
  ssh_key: "the SSH key was removed from the account",
} as const;

type CredentialKind = keyof typeof CREDENTIAL_ENDED;

/** What of an account has ended: API keys by their SHA-256, sessions and SSH keys by their ids. */
export interface EndedCredentials {
  keySha256s?: string[];
  sessionIds?: string[];
  sshKeyIds?: string[];
}

interface OpenedStream {
  accountId: string;
  /** The credentials the stream ends with, as `kind:id`. */
  credentials: Set<string>;
  end: (reason: string) => void;
}

export class StreamCredentials {
  private readonly streams = new Map<number, OpenedStream>();
  /** Per account, each credential ended here (`kind:id`) and when. */
  private readonly ended = new Map<string, Map<string, number>>();

  /** Why `opener` may not open a stream of `accountId` now (its end arrived here before the opening did), or null. */
  refusal(accountId: string, opener: Opener | null): string | null {
    const credential = opener && credentialOf(opener);
    return credential && this.hasEnded(accountId, credential) ? reasonFor(credential) : null;
  }

  /** Stream `id` of `accountId` is open, opened by `opener` (null: an instance token); `end` ends it, saying why. */
  opened(id: number, accountId: string, opener: Opener | null, end: (reason: string) => void): void {
    this.streams.set(id, { accountId, credentials: new Set(opener ? [credentialOf(opener)] : []), end });
  }

  closed(id: number): void {
    this.streams.delete(id);
  }

  /** The SSH connection on stream `id` authenticated with the account's SSH key `keyId`: it ends with the key, now if it has ended. */
  sshKeyUsed(id: number, keyId: string): void {
    const stream = this.streams.get(id);
    if (!stream) return;
    const credential = `ssh_key:${keyId}`;
    stream.credentials.add(credential);
    if (this.hasEnded(stream.accountId, credential)) stream.end(reasonFor(credential));
  }

  /** The AccountDO says these credentials of `accountId` have ended: every stream one of them opened ends. */
  end(accountId: string, ended: EndedCredentials): void {
    const credentials = [
      ...(ended.keySha256s ?? []).map((hash) => `key:${hash}`),
      ...(ended.sessionIds ?? []).map((id) => `session:${id}`),
      ...(ended.sshKeyIds ?? []).map((id) => `ssh_key:${id}`),
    ];
    if (credentials.length === 0) return;
    const nowMs = Date.now();
    this.forgetOld(nowMs);
    const endedHere = this.ended.get(accountId) ?? new Map<string, number>();
    for (const credential of credentials) endedHere.set(credential, nowMs);
    this.ended.set(accountId, endedHere);
    const ending: [OpenedStream, string][] = [];
    for (const stream of this.streams.values()) {
      if (stream.accountId !== accountId) continue;
      const match = credentials.find((credential) => stream.credentials.has(credential));
      if (match) ending.push([stream, reasonFor(match)]);
    }
    // Collected first: each stream leaves the table as it ends.
    for (const [stream, reason] of ending) stream.end(reason);
  }

  private hasEnded(accountId: string, credential: string): boolean {
    const at = this.ended.get(accountId)?.get(credential);
    return at !== undefined && Date.now() - at < ENDED_KEPT_MS;
  }

  private forgetOld(nowMs: number): void {
    for (const [accountId, endedHere] of this.ended) {
      for (const [credential, at] of endedHere) if (nowMs - at >= ENDED_KEPT_MS) endedHere.delete(credential);
      if (endedHere.size === 0) this.ended.delete(accountId);
    }
  }
}

function credentialOf(opener: Opener): string {
  return opener.kind === "key" ? `key:${opener.key_sha256}` : `session:${opener.session_id}`;
}

function reasonFor(credential: string): string {
  return CREDENTIAL_ENDED[credential.slice(0, credential.indexOf(":")) as CredentialKind];
}
