// Which SSH key opened a connection, for its account's `last_used_at`. The AccountDO is the authority
// for an account's SSH keys and when each was last used; only the agent's SSH server knows which key
// authenticated a connection, and says so (`ssh_key_used`). The MachineDO believes it only for a key
// that the connection's own ssh_open offered (proxy-bridge.ts), and reports it to the instance's
// account through its report outbox at most once a minute per key, as the proxy reports API keys'
// use (proxy-admission.ts): a session opened writes nothing on the SSH path itself.
import { clock } from "../../core/clock.ts";
import type { SingleAlarm } from "../outbox/single-alarm.ts";
import type { ContainerLedger } from "./container-ledger.ts";
import type { ProxyBridge } from "./proxy-bridge.ts";
import { UseReportThrottle } from "./use-report-throttle.ts";

export interface SshKeyUseParts {
  bridge: ProxyBridge;
  ledger: ContainerLedger;
  alarms: SingleAlarm;
}

export class SshKeyUse {
  private readonly parts: SshKeyUseParts;
  private readonly reports = new UseReportThrottle();

  constructor(parts: SshKeyUseParts) {
    this.parts = parts;
  }

  /** The agent says the SSH connection on `stream` authenticated with the key `keyId`. */
  note(stream: number, keyId: string): void {
    const instanceId = this.parts.bridge.sshKeyUsed(stream, keyId);
    const accountId = instanceId === null ? undefined : this.parts.ledger.container(instanceId)?.account_id;
    if (accountId === undefined) return;
    const nowMs = clock.now();
    if (!this.reports.due(keyId, nowMs)) return;
    this.parts.ledger.reports.enqueue(accountId, { kind: "ssh_key_used", key_id: keyId, at: nowMs });
    this.parts.alarms.afterChange();
  }
}
