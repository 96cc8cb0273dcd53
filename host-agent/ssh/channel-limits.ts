// What one SSH connection may make the bridge carry for a client that stops reading. The MachineDO
// holds at most a window of what the client's socket has not taken (ws-stream.ts); before that,
// SSH's own flow control bounds it. Whatever window a client announces, a channel may have at most
// CHANNEL_WINDOW_BYTES that the client has not acknowledged (WINDOW_ADJUST), and a connection has
// at most MAX_CHANNELS channels open, so
//   bytes in flight per SSH connection <= CHANNEL_WINDOW_BYTES x MAX_CHANNELS (MAX_IN_FLIGHT_BYTES).
// That bounds a client that stops reading as SSH clients do (OpenSSH acknowledges only what it has
// written out); one that sends WINDOW_ADJUST without reading its socket is bounded by the MachineDO.
// The window sets the rate of a bulk transfer over this bridge's long round trip: 1 MiB made an
// OpenSSH download about 8% slower than OpenSSH's own 2 MiB per session channel, 512 KiB much slower
// (docs/benchmarks.md, "SSH through the bridge"). So the cap is OpenSSH's own window: it costs that
// client nothing, and holds one that announces more.
import type { ServerChannel } from "ssh2";

export const CHANNEL_WINDOW_BYTES = 2 * 1024 * 1024;
/** OpenSSH's sshd allows as many sessions per connection (MaxSessions). */
export const MAX_CHANNELS = 10;
export const MAX_IN_FLIGHT_BYTES = CHANNEL_WINDOW_BYTES * MAX_CHANNELS;

/**
 * Keeps the window the server may still fill on `channel` at most CHANNEL_WINDOW_BYTES: ssh2 adds each
 * WINDOW_ADJUST to `outgoing.window` and subtracts what it sends, so clamping what is stored there
 * keeps sent-but-unacknowledged bytes within the cap (an adjust acknowledges bytes the client took).
 */
export function capWindow(channel: ServerChannel): void {
  const outgoing = (channel as unknown as { outgoing: { window: number } }).outgoing;
  let window = Math.min(outgoing.window, CHANNEL_WINDOW_BYTES);
  Object.defineProperty(outgoing, "window", {
    get: () => window,
    set: (value: number) => (window = Math.min(value, CHANNEL_WINDOW_BYTES)),
    enumerable: true,
    configurable: true,
  });
}

/** The channels of one connection: a slot is taken before a channel is accepted and freed when it closes. */
export class ChannelSlots {
  #open = 0;

  take(): boolean {
    if (this.#open >= MAX_CHANNELS) return false;
    this.#open++;
    return true;
  }

  free(): void {
    this.#open = Math.max(0, this.#open - 1);
  }
}
