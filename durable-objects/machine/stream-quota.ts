// How many streams (proxied requests and WebSockets, log streams) one instance, and one account, may
// hold open through a machine's MachineDO at once: every tenant of the machine shares that object,
// and each stream costs it some state and a wake now and then. The bytes the streams hold there are
// bounded apart from their number: what the agent sends, by its budget of unacknowledged bytes
// (host-agent/proxy/send-budget.ts: 24 MiB of an instance's, 64 MiB in all); what clients send over
// WebSockets faster than their upstreams read, by queue-budget.ts; the buffers request bodies are
// read into, by body-reads.ts.
// The MachineDO alone counts them (streams live in its memory), so the count is exact.
import { ApiError } from "../../core/errors.ts";
import type { Opener } from "../contracts/opener.ts";

/** More than a browser opens for a page, and the 64-at-once the benchmarks drive through one instance. */
export const STREAMS_PER_INSTANCE = 100;
/** An account's instances on one machine together. */
export const STREAMS_PER_ACCOUNT = 200;
/** Streams end as their clients finish: a second is long enough for one to free up. */
const RETRY_AFTER_S = 1;

export interface StreamOwner {
  instanceId: string;
  accountId: string;
  /**
   * The key or session the stream was opened with (null or absent: an instance token): a WebSocket or
   * a log stream ends when it is revoked (stream-credentials.ts).
   */
  opener?: Opener | null;
}

/** Told of the streams that carry traffic to an instance (instance-activity.ts): each as it opens and as it ends. */
export interface StreamWatcher {
  streamOpened(instanceId: string): void;
  streamClosed(instanceId: string): void;
}

export class StreamQuota {
  private readonly perInstance = new Map<string, number>();
  private readonly perAccount = new Map<string, number>();
  private readonly watcher: StreamWatcher | null;

  constructor(watcher: StreamWatcher | null = null) {
    this.watcher = watcher;
  }

  /**
   * A stream for `owner`: the function that gives it back (once, however often called), or the 429 to
   * answer. `traffic`: whether the watcher hears of it (a log stream is not the instance being used).
   */
  take(owner: StreamOwner, traffic = true): (() => void) | Response {
    const instance = this.perInstance.get(owner.instanceId) ?? 0;
    const account = this.perAccount.get(owner.accountId) ?? 0;
    if (instance >= STREAMS_PER_INSTANCE) return tooMany(`instance ${owner.instanceId} has ${instance} streams open, the most one instance may`);
    if (account >= STREAMS_PER_ACCOUNT) return tooMany(`the account's instances on this host have ${account} streams open, the most one account may`);
    this.perInstance.set(owner.instanceId, instance + 1);
    this.perAccount.set(owner.accountId, account + 1);
    const watcher = traffic ? this.watcher : null;
    watcher?.streamOpened(owner.instanceId);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      decrement(this.perInstance, owner.instanceId);
      decrement(this.perAccount, owner.accountId);
      watcher?.streamClosed(owner.instanceId);
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

function tooMany(message: string): Response {
  const response = new ApiError("rate_limited", `${message}; retry once one has ended`).toResponse();
  response.headers.set("retry-after", String(RETRY_AFTER_S));
  return response;
}
