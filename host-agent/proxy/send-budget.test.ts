// The connection's budget of unacknowledged bytes on its own: each instance's share, the whole
// connection's, room coming back with `window` frames and with streams ending, exactly once.
import { describe, expect, it } from "vitest";
import { DataKind } from "../../protocol/mux/frames.ts";
import { CONNECTION_BUDGET_BYTES, INSTANCE_BUDGET_BYTES, SendBudget } from "./send-budget.ts";
import type { StreamTransport } from "./stream-transport.ts";

const MiB = 1024 * 1024;

function setUp() {
  const sent: number[] = [];
  const transport: StreamTransport = {
    send: () => {},
    sendData: (_kind, _stream, payload) => void sent.push(payload.byteLength),
    congested: () => false,
    whenUncongested: () => {},
  };
  return { budget: new SendBudget(transport), sent };
}

const spend = (transport: StreamTransport, bytes: number) => transport.sendData(DataKind.body, 0, new Uint8Array(bytes));
const turn = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe("send budget", () => {
  it("holds an instance's streams once they have its share out, and no other instance's", () => {
    const { budget, sent } = setUp();
    const first = budget.transportFor(1, "i-a");
    const second = budget.transportFor(2, "i-a");
    const other = budget.transportFor(3, "i-b");
    spend(first, INSTANCE_BUDGET_BYTES / 2);
    expect(second.congested()).toBe(false);
    spend(second, INSTANCE_BUDGET_BYTES / 2);
    expect([first.congested(), second.congested(), other.congested()]).toEqual([true, true, false]);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_BUDGET_BYTES);
    expect(sent).toEqual([INSTANCE_BUDGET_BYTES / 2, INSTANCE_BUDGET_BYTES / 2]);
  });

  it("holds every stream once the connection has its budget out", () => {
    const { budget } = setUp();
    const instances = Array.from({ length: CONNECTION_BUDGET_BYTES / INSTANCE_BUDGET_BYTES }, (_, n) => budget.transportFor(n, `i-${n}`));
    for (const transport of instances.slice(0, -1)) spend(transport, INSTANCE_BUDGET_BYTES);
    spend(instances.at(-1)!, INSTANCE_BUDGET_BYTES - MiB);
    const late = budget.transportFor(99, "i-late");
    expect(late.congested()).toBe(false);
    spend(late, MiB);
    expect(budget.unacknowledged()).toBe(CONNECTION_BUDGET_BYTES);
    expect(late.congested()).toBe(true);
    expect(budget.transportFor(100, "i-later").congested()).toBe(true);
  });

  it("wakes waiting streams once a window frame gives room back, each checking again for itself", async () => {
    const { budget } = setUp();
    const full = budget.transportFor(1, "i-a");
    spend(full, INSTANCE_BUDGET_BYTES);
    const woken: string[] = [];
    full.whenUncongested(() => woken.push("a"));
    budget.acknowledged(1, MiB);
    expect(woken).toEqual([]);
    await turn();
    expect(woken).toEqual(["a"]);
    expect(full.congested()).toBe(false);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_BUDGET_BYTES - MiB);
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

  it("counts no window frame for more than the stream has out", () => {
    const { budget } = setUp();
    const stream = budget.transportFor(1, "i-a");
    spend(stream, MiB);
    budget.acknowledged(1, 4 * MiB);
    expect(budget.unacknowledged()).toBe(0);
    spend(stream, MiB);
    expect(budget.unacknowledged("i-a")).toBe(MiB);
  });
});
