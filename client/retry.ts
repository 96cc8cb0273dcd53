// A fetch that retries 429 Too Many Requests after the server's Retry-After, a bounded number of
// times. Each attempt sends a fresh copy of the same request, headers (Idempotency-Key) included.
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** A longer Retry-After is not waited for: the 429 is the answer. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, maxDelayMs: 30_000 };

/** Wait when a 429 carries no usable Retry-After. */
const FALLBACK_DELAY_MS = 1_000;

export type Fetch = (request: Request) => Promise<Response>;

export function retrying429(fetch: Fetch, policy: RetryPolicy, sleep = defaultSleep): Fetch {
  return async function fetchRetrying429(request) {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(attempt < policy.attempts ? request.clone() : request);
      if (response.status !== 429 || attempt >= policy.attempts) return response;
      const delayMs = retryAfterMs(response.headers.get("retry-after"), Date.now()) ?? FALLBACK_DELAY_MS;
      if (delayMs > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delayMs, request.signal);
    }
  };
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", abort, { once: true });
  });
}
