// Polls a condition until it holds (tests wait for observable state instead of sleeping blindly).
import { setTimeout as sleep } from "node:timers/promises";

export async function waitUntil<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Resolves true once a TCP connection to the port succeeds via /health, false if it is refused. */
export async function healthAnswers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    return res.status === 200 && (await res.text()) === "ok";
  } catch (error) {
    // Nothing listening (yet, or any more) is "no"; any other failure is the test's to see.
    if (connectionRefused(error)) return false;
    throw error;
  }
}

function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === "ECONNREFUSED" || cause?.code === "ECONNRESET";
}
