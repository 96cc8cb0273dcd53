// How often a MachineDO tells an account that one of its credentials was used (an API key on the
// proxy, an SSH key on a connection): at most once per LAST_USED_RESOLUTION_MS per credential, the
// resolution `last_used_at` is kept at. In memory: a woken object may report once more.
import { LAST_USED_RESOLUTION_MS } from "../contracts/credential-lifetimes.ts";

export class UseReportThrottle {
  private readonly lastReported = new Map<string, number>();

  /** Whether a use of `credential` at `nowMs` is to be reported; if so, it counts as reported. */
  due(credential: string, nowMs: number): boolean {
    const last = this.lastReported.get(credential);
    if (last !== undefined && nowMs - last < LAST_USED_RESOLUTION_MS) return false;
    this.lastReported.set(credential, nowMs);
    return true;
  }
}
