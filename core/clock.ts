// The time every Durable Object reads for billing and expiry. Production reads the platform's
// clock; tests replace `now` (vi.spyOn) to move billing time without waiting for it.
export const clock = {
  now(): number {
    return Date.now();
  },
};

export type Clock = typeof clock;

export const iso = (ms: number) => new Date(ms).toISOString();
