// The shared outbox against a real SQLite-backed object in workerd (a scratch FleetDO, which has no
// outbox of its own), with a clock the test moves and a destination it controls.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { sqlFor, type Sql } from "../sql.ts";
import { IMMEDIATE_ATTEMPTS, Outbox, type Queued } from "./outbox.ts";

interface Note {
  text: string;
}

type Sent = { destination: string; batch: Queued<Note>[] };

let scratchCount = 0;

interface Harness {
  outbox: Outbox<Note>;
  sql: Sql;
  clock: { ms: number };
  sent: Sent[];
  /** Destinations whose sends fail. */
  failFor: Set<string>;
  /** Holds every send to `destination` until the returned release is called. */
  hold(destination: string): () => void;
}

/** Runs `test` with a fresh object's storage, an outbox over it, the clock and what was sent. */
function withOutbox(test: (harness: Harness) => Promise<void>): Promise<void> {
  return runInDurableObject(env.FLEET.getByName(`outbox-scratch-${++scratchCount}`), async (_, state) => {
    const sql = sqlFor(state.storage);
    const clock = { ms: 1_000_000 };
    const sent: Sent[] = [];
    const failFor = new Set<string>();
    const held = new Map<string, Promise<void>>();
    const hold = (destination: string) => {
      let release!: () => void;
      held.set(destination, new Promise<void>((resolve) => (release = resolve)));
      return release;
    };
    const outbox = new Outbox<Note>(sql, {
      name: "note",
      now: () => clock.ms,
      send: async (destination, batch) => {
        sent.push({ destination, batch });
        const gate = held.get(destination);
        if (gate) await gate;
        if (failFor.has(destination)) throw new Error(`${destination} is down`);
      },
    });
    await test({ outbox, sql, clock, sent, failFor, hold });
  });
}

const texts = (batch: Queued<Note>[]) => batch.map((queued) => queued.message.text);

describe("Outbox", () => {
  it("an empty outbox needs no alarm", () =>
    withOutbox(async ({ outbox }) => {
      expect(outbox.nextAlarmMs()).toBeNull();
    }));

  it("a queued message is due at once; delivered, it is acknowledged and gone", () =>
    withOutbox(async ({ outbox, sql, clock, sent }) => {
      outbox.enqueue("m1", { text: "a" });
      outbox.enqueue("m1", { text: "b" });
      expect(outbox.nextAlarmMs()).toBe(clock.ms);
      await outbox.deliver();
      expect(sent).toEqual([{ destination: "m1", batch: [{ seq: expect.any(Number), message: { text: "a" } }, { seq: expect.any(Number), message: { text: "b" } }] }]);
      expect(sent[0]!.batch[1]!.seq).toBeGreaterThan(sent[0]!.batch[0]!.seq);
      expect(sql`SELECT * FROM outbox`).toEqual([]);
      expect(outbox.nextAlarmMs()).toBeNull();
    }));

  it("a failing destination is retried after 1 s, 2 s, 4 s ... doubling up to 60 s, each retry its next due time", () =>
    withOutbox(async ({ outbox, clock, sent, failFor }) => {
      failFor.add("down");
      outbox.enqueue("down", { text: "x" });
      const delays: number[] = [];
      for (let attempt = 0; attempt < 9; attempt++) {
        await outbox.deliver();
        const next = outbox.nextAlarmMs()!;
        delays.push(next - clock.ms);
        clock.ms = next - 1;
        await outbox.deliver(); // a millisecond early: not due, nothing sent
        clock.ms = next;
      }
      expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
      expect(sent.length).toBe(9);
      failFor.clear();
      await outbox.deliver();
      expect(outbox.nextAlarmMs()).toBeNull();
    }));

  it("groups by destination, oldest first; a failing destination holds back only its own queue", () =>
    withOutbox(async ({ outbox, sql, clock, sent, failFor }) => {
      failFor.add("b");
      outbox.enqueue("a", { text: "a1" });
      outbox.enqueue("b", { text: "b1" });
      outbox.enqueue("a", { text: "a2" });
      await outbox.deliver();
      expect(sent.map((s) => [s.destination, texts(s.batch)])).toEqual([["a", ["a1", "a2"]], ["b", ["b1"]]]);
      expect(sql<{ destination: string; attempts: number }>`SELECT destination, attempts FROM outbox`).toEqual([{ destination: "b", attempts: 1 }]);
      expect(outbox.nextAlarmMs()).toBe(clock.ms + 1000);
    }));

  it("a destination's whole queue goes together once any of it is due, so nothing newer overtakes an older message", () =>
    withOutbox(async ({ outbox, clock, sent, failFor }) => {
      failFor.add("m");
      outbox.enqueue("m", { text: "old" });
      await outbox.deliver();
      expect(outbox.nextAlarmMs()).toBe(clock.ms + 1000);
      failFor.clear();
      outbox.enqueue("m", { text: "new" });
      await outbox.deliver();
      expect(texts(sent.at(-1)!.batch)).toEqual(["old", "new"]);
      expect(outbox.nextAlarmMs()).toBeNull();
    }));

  it("single flight: a delivery asked for during one joins it and goes round once more, sending nothing twice", () =>
    withOutbox(async ({ outbox, sent, hold }) => {
      const release = hold("m");
      outbox.enqueue("m", { text: "first" });
      const first = outbox.deliver();
      outbox.enqueue("m", { text: "second" });
      const second = outbox.deliver();
      expect(second).toBe(first);
      release();
      await first;
      expect(sent.map((s) => texts(s.batch))).toEqual([["first"], ["second"]]);
      expect(outbox.nextAlarmMs()).toBeNull();
    }));

  it("sequence numbers keep increasing after the queue empties (receivers skip any seq they have seen)", () =>
    withOutbox(async ({ outbox, sent }) => {
      outbox.enqueue("m", { text: "1" });
      await outbox.deliver();
      outbox.enqueue("m", { text: "2" });
      await outbox.deliver();
      expect(sent[1]!.batch[0]!.seq).toBeGreaterThan(sent[0]!.batch[0]!.seq);
    }));

  it("a destination that hangs does not hold back the others", () =>
    withOutbox(async ({ outbox, sql, hold }) => {
      const release = hold("slow");
      outbox.enqueue("slow", { text: "s" });
      outbox.enqueue("fast", { text: "f" });
      const delivering = outbox.deliver();
      // Acknowledged while the slow one is still in flight.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(sql<{ destination: string }>`SELECT destination FROM outbox`).toEqual([{ destination: "slow" }]);
      release();
      await delivering;
      expect(sql`SELECT * FROM outbox`).toEqual([]);
    }));

  it("deliverNow sends at once, backoff or not, and says whether the destination acknowledged", () =>
    withOutbox(async ({ outbox, sql, clock, sent, failFor }) => {
      failFor.add("down");
      const first = outbox.enqueue("down", { text: "a" });
      await outbox.deliver();
      expect(outbox.nextAlarmMs()).toBe(clock.ms + 1000);
      sent.length = 0;
      expect(await outbox.deliverNow([first])).toBe(false);
      expect(sent.length).toBe(IMMEDIATE_ATTEMPTS);
      // Still queued, for the alarm to retry later.
      expect(sql<{ seq: number }>`SELECT seq FROM outbox`).toEqual([{ seq: first.seq }]);
      expect(outbox.nextAlarmMs()).toBeGreaterThan(clock.ms);
      failFor.clear();
      const second = outbox.enqueue("down", { text: "b" });
      expect(await outbox.deliverNow([second])).toBe(true);
      expect(texts(sent.at(-1)!.batch)).toEqual(["a", "b"]);
      expect(sql`SELECT * FROM outbox`).toEqual([]);
      sent.length = 0;
      expect(await outbox.deliverNow([second])).toBe(true);
      expect(sent).toEqual([]);
    }));

  it("pending names each destination's last unacknowledged message of a kind", () =>
    withOutbox(async ({ outbox, failFor }) => {
      failFor.add("m1").add("m2");
      outbox.enqueue("m1", { text: "key" });
      const lastKey = outbox.enqueue("m1", { text: "key" });
      outbox.enqueue("m1", { text: "other" });
      const m2 = outbox.enqueue("m2", { text: "other" });
      await outbox.deliver();
      expect(outbox.pending((note) => note.text === "key")).toEqual([lastKey]);
      expect(outbox.pending()).toEqual([{ destination: "m1", seq: lastKey.seq + 1 }, m2]);
      failFor.clear();
      await outbox.deliverNow(outbox.pending());
      expect(outbox.pending()).toEqual([]);
    }));
});
