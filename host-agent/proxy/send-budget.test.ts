// The connection's budget of unacknowledged bytes on its own: each instance's share and limit, the
// whole connection's limit, room coming back with `window` frames and with streams ending, exactly
// once; an ended stream counted until a MachineDO that settles streams has acknowledged the rest.
import { describe, expect, it } from "vitest";
import { DataKind } from "../../protocol/mux/frames.ts";
import { CONNECTION_LIMIT_BYTES, INSTANCE_LIMIT_BYTES, INSTANCE_SHARE_BYTES, SendBudget, STREAM_START_BYTES } from "./send-budget.ts";
import type { StreamTransport } from "./stream-transport.ts";

const MiB = 1024 * 1024;

function setUp() {
  const sent: number[] = [];
  const frames: Uint8Array[] = [];
  const transport: StreamTransport = {
    send: () => {},
    sendData: (_kind, _stream, payload) => void sent.push(payload.byteLength),
    sendFrame: (frame) => void frames.push(frame),
    congested: () => false,
    whenUncongested: () => {},
  };
  return { budget: new SendBudget(transport), sent, frames };
}

const spend = (transport: StreamTransport, bytes: number) => transport.sendData(DataKind.body, 0, new Uint8Array(bytes));

/** Two streams of one instance, the first with the instance's limit out. */
function oneAtTheLimit() {
  const { budget } = setUp();
  const full = budget.transportFor(1, "i-a");
  const waiting = budget.transportFor(2, "i-a");
  spend(full, INSTANCE_LIMIT_BYTES);
  return { budget, full, waiting };
}

describe("send budget", () => {
  it("past an instance's share holds its streams that have a megabyte out, not one just starting, nor another instance's", () => {
    const { budget, sent } = setUp();
    const first = budget.transportFor(1, "i-a");
    const second = budget.transportFor(2, "i-a");
    const other = budget.transportFor(3, "i-b");
    spend(first, INSTANCE_SHARE_BYTES / 2);
    expect(second.congested()).toBe(false);
    spend(second, INSTANCE_SHARE_BYTES / 2);
    const starting = budget.transportFor(4, "i-a");
    expect([first.congested(), second.congested(), starting.congested(), other.congested()]).toEqual([true, true, false, false]);
    spend(starting, STREAM_START_BYTES - 1);
    expect(starting.congested()).toBe(false);
    spend(starting, 1);
    expect(starting.congested()).toBe(true);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_SHARE_BYTES + STREAM_START_BYTES);
    expect(sent).toEqual([INSTANCE_SHARE_BYTES / 2, INSTANCE_SHARE_BYTES / 2, STREAM_START_BYTES - 1, 1]);
  });

  it("holds every stream of an instance at its limit, however little each has out", () => {
    const { budget } = setUp();
    const streams = Array.from({ length: INSTANCE_LIMIT_BYTES / MiB }, (_, n) => budget.transportFor(n, "i-a"));
    for (const stream of streams.slice(0, -1)) spend(stream, MiB);
    expect(streams.at(-1)!.congested()).toBe(false);
    spend(streams.at(-1)!, MiB / 2);
    expect(streams.at(-1)!.congested()).toBe(false);
    spend(streams.at(-1)!, MiB / 2);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_LIMIT_BYTES);
    expect(budget.transportFor(99, "i-a").congested()).toBe(true);
    expect(budget.transportFor(100, "i-b").congested()).toBe(false);
  });

  it("holds every stream once the connection has its limit out", () => {
    const { budget } = setUp();
    const full = Math.floor(CONNECTION_LIMIT_BYTES / INSTANCE_LIMIT_BYTES);
    for (let n = 0; n < full; n++) spend(budget.transportFor(n, `i-${n}`), INSTANCE_LIMIT_BYTES);
    const late = budget.transportFor(99, "i-late");
    spend(late, CONNECTION_LIMIT_BYTES - full * INSTANCE_LIMIT_BYTES - 1);
    expect(late.congested()).toBe(false);
    spend(late, 1);
    expect(budget.unacknowledged()).toBe(CONNECTION_LIMIT_BYTES);
    expect(late.congested()).toBe(true);
    expect(budget.transportFor(100, "i-later").congested()).toBe(true);
  });

  it("wakes waiting streams as a window frame gives room back, before anything else may send, each checking again for itself", () => {
    const { budget, full, waiting } = oneAtTheLimit();
    const woken: string[] = [];
    const takeRoom = () => {
      woken.push("waiting");
      spend(waiting, MiB);
    };
    waiting.whenUncongested(takeRoom);
    full.whenUncongested(() => woken.push(full.congested() ? "full, still over" : "full"));
    budget.acknowledged(1, MiB);
    expect(woken).toEqual(["waiting", "full, still over"]);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_LIMIT_BYTES);
  });

  it("wakes again when room is freed while waiters are being woken", () => {
    const { budget, full, waiting } = oneAtTheLimit();
    const woken: boolean[] = [];
    const check = () => {
      woken.push(waiting.congested());
      if (waiting.congested()) waiting.whenUncongested(check);
    };
    waiting.whenUncongested(() => {
      spend(waiting, MiB);
      woken.push(waiting.congested());
      waiting.whenUncongested(check);
      full.release();
    });
    budget.acknowledged(1, MiB);
    expect(woken).toEqual([true, false]);
  });

  it("gives a stream's unacknowledged bytes back once when it ends, however often it is released", () => {
    const { budget } = setUp();
    const ending = budget.transportFor(1, "i-a");
    const staying = budget.transportFor(2, "i-a");
    spend(ending, 3 * MiB);
    spend(staying, 2 * MiB);
    budget.acknowledged(1, MiB);
    ending.release();
    ending.release();
    expect(budget.unacknowledged("i-a")).toBe(2 * MiB);
    expect(budget.unacknowledged()).toBe(2 * MiB);
    budget.acknowledged(1, MiB);
    expect(budget.unacknowledged()).toBe(2 * MiB);
  });

  it("with a MachineDO that settles streams, counts an ended stream's bytes until it has acknowledged them, then forgets it", () => {
    const { budget } = setUp();
    budget.serverSettles(true);
    const ended = budget.transportFor(1, "i-a");
    spend(ended, 3 * MiB);
    ended.release();
    expect(budget.unacknowledged("i-a")).toBe(3 * MiB);
    budget.acknowledged(1, 2 * MiB);
    expect(budget.unacknowledged("i-a")).toBe(MiB);
    budget.acknowledged(1, MiB);
    expect(budget.unacknowledged()).toBe(0);
    const next = budget.transportFor(2, "i-a");
    spend(next, MiB);
    budget.acknowledged(1, MiB);
    expect(budget.unacknowledged()).toBe(MiB);
  });

  it("forgets at once a stream the MachineDO ended, one whose id it opens again, and every stream when the connection goes", () => {
    const { budget } = setUp();
    budget.serverSettles(true);
    const aborted = budget.transportFor(1, "i-a");
    spend(aborted, MiB);
    budget.drop(1);
    aborted.release();
    expect(budget.unacknowledged()).toBe(0);
    const ended = budget.transportFor(2, "i-a");
    spend(ended, MiB);
    ended.release();
    spend(budget.transportFor(2, "i-b"), 2 * MiB);
    expect([budget.unacknowledged("i-a"), budget.unacknowledged("i-b")]).toEqual([0, 2 * MiB]);
    spend(budget.transportFor(3, "i-c"), MiB);
    budget.dropAll();
    expect(budget.unacknowledged()).toBe(0);
  });

  it("counts no window frame for more than the stream has out", () => {
    const { budget } = setUp();
    const stream = budget.transportFor(1, "i-a");
    spend(stream, MiB);
    budget.acknowledged(1, 4 * MiB);
    expect(budget.unacknowledged()).toBe(0);
    spend(stream, MiB);
    expect(budget.unacknowledged("i-a")).toBe(MiB);
  });

  it("passes a whole response's frame on without counting it: it ends its stream and no window answers it", () => {
    const { budget, frames } = setUp();
    const frame = new Uint8Array(INSTANCE_LIMIT_BYTES);
    budget.transportFor(1, "i-a").sendFrame(frame);
    expect(frames.length === 1 && frames[0] === frame).toBe(true);
    expect(budget.unacknowledged()).toBe(0);
    expect(budget.transportFor(2, "i-a").congested()).toBe(false);
  });
});
