// Proxy admission, the MachineDO's part of the hot path: it is the authority for which credentials
// open the proxy of the containers it hosts, answering from what it alone holds (each container's
// account, desired and reported state; the accounts' key sets; whether the host is online) without
// asking any other object, and without a storage write per request. The instance's state is judged
// by the one rule every way in shares (reachability.ts).
// A key not in the container's account's set may be another account's valid key (404) or a wrong
// one (401): it cannot tell, so it answers `ask_account` and the Worker asks the key's AccountDO (the
// slow path, for refusals and legacy ids only). So does an instance it does not know (an id made
// before ids named their machine, or an instance purged since). An instance web app's session is
// judged here alone (app-sessions.ts): it is never the account's to judge.
import { clock } from "../../core/clock.ts";
import { instanceTokenFor } from "../../core/credentials.ts";
import type { Env } from "../../core/env.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { constantTimeEqual } from "../../core/hash.ts";
import type { ProxyCredential, ProxyRefusal, ProxyRequest } from "../contracts/proxy-request.ts";
import { callerRefused } from "../contracts/refusals.ts";
import type { SingleAlarm } from "../outbox/single-alarm.ts";
import type { AccountKeySets } from "./account-key-sets.ts";
import type { AppSessions } from "./app-sessions.ts";
import type { ContainerLedger, ContainerRow } from "./container-ledger.ts";
import { MAX_REQUEST_BODY_BYTES } from "./http-stream.ts";
import type { MachineRecord } from "./machine-record.ts";
import { reachRefusal } from "./reachability.ts";
import { UseReportThrottle } from "./use-report-throttle.ts";

export interface AdmissionParts {
  env: Env;
  ledger: ContainerLedger;
  record: MachineRecord;
  keySets: AccountKeySets;
  appSessions: AppSessions;
  alarms: SingleAlarm;
}

const ASK_ACCOUNT: ProxyRefusal = { kind: "ask_account" };

export class ProxyAdmission {
  private readonly parts: AdmissionParts;
  /** A key's use is reported to its account at most once a minute. */
  private readonly keyUseReports = new UseReportThrottle();

  constructor(parts: AdmissionParts) {
    this.parts = parts;
  }

  /** Null when the exchange may open; else why not. `declaredLength` is the request's Content-Length. */
  async admit(request: ProxyRequest, declaredLength: string | null): Promise<ProxyRefusal | null> {
    const id = request.instanceId;
    const container = this.parts.ledger.containerForProxy(id);
    const { credential } = request;
    if (credential.kind === "app_session") {
      const refusal = this.parts.appSessions.admit(id, request.port, credential.session_sha256, container);
      if (refusal) return refusal;
    }
    if (credential.kind === "key" || credential.kind === "instance_token") {
      // An instance this machine does not know: only the credential's account can say whose it is.
      const refusal = container ? await this.checkCredential(container, credential) : ASK_ACCOUNT;
      if (refusal) return refusal;
    }
    const unreachable = reachRefusal(id, container, this.parts.record.isOnlineForProxy());
    if (unreachable) return refused(unreachable);
    if (Number(declaredLength ?? 0) > MAX_REQUEST_BODY_BYTES) {
      return refused(fail("payload_too_large", `request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes (512 MB)`));
    }
    if (credential.kind === "key") this.noteKeyUse(container!.account_id, credential.key_sha256);
    return null;
  }

  private async checkCredential(container: ContainerRow, credential: Extract<ProxyCredential, { kind: "key" | "instance_token" }>): Promise<ProxyRefusal | null> {
    if (credential.kind === "instance_token") {
      // Bound to this instance and its account: any other token is wrong, whoever holds it.
      const expected = await instanceTokenFor(this.parts.env.INSTANCE_TOKEN_SECRET, container.account_id, container.instance_id);
      return constantTimeEqual(credential.token, expected) ? null : refused(callerRefused());
    }
    return this.parts.keySets.admits(container.account_id, credential.key_sha256, container.instance_id, clock.now()) ? null : ASK_ACCOUNT;
  }

  /** The key's account moves its last_used_at from a report, sent through the report outbox. */
  private noteKeyUse(accountId: string, keySha256: string): void {
    const nowMs = clock.now();
    if (!this.keyUseReports.due(keySha256, nowMs)) return;
    this.parts.ledger.reports.enqueue(accountId, { kind: "key_used", key_sha256: keySha256, at: nowMs });
    this.parts.alarms.afterChange();
  }
}

const refused = ({ code, message }: Failure): ProxyRefusal => ({ kind: "refused", code, message });
