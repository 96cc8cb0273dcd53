// Checks the credential a caller presents to its AccountDO: an API key (Authorization: Bearer) or
// a session (the gpr_session cookie). Both are checked on the same call as the operation they
// allow, so a revoked key or session fails on its very next use; what one opens that lasts (a web
// app, a terminal, an SSH connection, a log stream) is noted with it as its opener, and ends with it
// (credential-ends.ts, key-set.ts).
import { apiKeys, sessionTokens } from "../../core/credentials.ts";
import { clock, iso } from "../../core/clock.ts";
import { sha256Hex } from "../../core/hash.ts";
import type { Opener } from "../contracts/opener.ts";
import type { Sql } from "../sql.ts";
import type { AccountRecord } from "./account-record.ts";
import { findLiveKey } from "./keys.ts";
import { findLiveSession } from "./sessions.ts";

export type Caller = { kind: "key"; keySha256: string } | { kind: "session"; sessionId: string };

/** The caller as the opener of what it opens (opener.ts). */
export function openerOf(caller: Caller): Opener {
  return caller.kind === "key" ? { kind: "key", key_sha256: caller.keySha256 } : { kind: "session", session_id: caller.sessionId };
}

export class Callers {
  private readonly sql: Sql;
  private readonly record: AccountRecord;

  constructor(sql: Sql, record: AccountRecord) {
    this.sql = sql;
    this.record = record;
  }

  /** Who `credential` is, or null when it is no live key or session of this account (or there is no account). */
  async who(credential: string): Promise<Caller | null> {
    return this.record.info() === undefined ? null : checkCredential(this.sql, credential, clock.now());
  }

  async admits(credential: string): Promise<boolean> {
    return (await this.who(credential)) !== null;
  }
}

async function checkCredential(sql: Sql, credential: string, nowMs: number): Promise<Caller | null> {
  if (apiKeys.ownerOf(credential) !== null) {
    const keySha256 = await sha256Hex(credential);
    return findLiveKey(sql, keySha256, iso(nowMs)) ? { kind: "key", keySha256 } : null;
  }
  if (sessionTokens.ownerOf(credential) !== null) {
    const sessionId = findLiveSession(sql, await sha256Hex(credential), nowMs);
    return sessionId === null ? null : { kind: "session", sessionId };
  }
  return null;
}
