// The SSH server's bounds per connection: a channel's window as the server sees it never exceeds
// CHANNEL_WINDOW_BYTES whatever the client announces or adds, and at most MAX_CHANNELS slots are
// taken at once. End to end with the real clients: test/e2e/slow-reader.test.ts.
import type { ServerChannel } from "ssh2";
import { describe, expect, it } from "vitest";
import { capWindow, CHANNEL_WINDOW_BYTES, ChannelSlots, MAX_CHANNELS, MAX_IN_FLIGHT_BYTES } from "./channel-limits.ts";

/** The part of ssh2's channel that its sender and its WINDOW_ADJUST handler use. */
const channelWithWindow = (window: number) => ({ outgoing: { id: 0, window } });

describe("capWindow", () => {
  it("lowers a client's huge window to the cap, and keeps each WINDOW_ADJUST within it", () => {
    const channel = channelWithWindow(2 ** 32 - 1);
    capWindow(channel as unknown as ServerChannel);
    expect(channel.outgoing.window).toBe(CHANNEL_WINDOW_BYTES);
    // ssh2 sends 32 KiB, then the client acknowledges 4 GiB.
    channel.outgoing.window -= 32 * 1024;
    expect(channel.outgoing.window).toBe(CHANNEL_WINDOW_BYTES - 32 * 1024);
    channel.outgoing.window += 2 ** 32 - 1;
    expect(channel.outgoing.window).toBe(CHANNEL_WINDOW_BYTES);
    expect(JSON.parse(JSON.stringify(channel.outgoing))).toEqual({ id: 0, window: CHANNEL_WINDOW_BYTES });
  });

  it("keeps a smaller window as the client gave it", () => {
    const channel = channelWithWindow(64 * 1024);
    capWindow(channel as unknown as ServerChannel);
    expect(channel.outgoing.window).toBe(64 * 1024);
    channel.outgoing.window += 64 * 1024;
    expect(channel.outgoing.window).toBe(128 * 1024);
  });
});

describe("ChannelSlots", () => {
  it(`gives ${MAX_CHANNELS} slots at once, and one more once one is freed`, () => {
    const slots = new ChannelSlots();
    for (let i = 0; i < MAX_CHANNELS; i++) expect(slots.take()).toBe(true);
    expect(slots.take()).toBe(false);
    slots.free();
    expect(slots.take()).toBe(true);
    expect(MAX_IN_FLIGHT_BYTES).toBe(CHANNEL_WINDOW_BYTES * MAX_CHANNELS);
  });
});
