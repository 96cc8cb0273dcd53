// Polls a condition (state that settles through alarms and outboxes) without fixed sleeps.
export async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, rounds = 100): Promise<T> {
  let last: T | undefined;
  for (let round = 0; round < rounds; round++) {
    last = await probe();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}
