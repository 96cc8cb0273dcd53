// Credit at one end of a stream: what a sender may send, and what a receiver returns and when.
import { describe, expect, it } from "vitest";
import { INITIAL_WINDOW_BYTES, ReceiveCredit, SendCredit, WINDOW_UPDATE_THRESHOLD } from "./flow-control.ts";

describe("SendCredit", () => {
  it("starts with one window, spends and regains it", () => {
    const credit = new SendCredit();
    expect(credit.available).toBe(INITIAL_WINDOW_BYTES);
    credit.consume(INITIAL_WINDOW_BYTES - 10);
    expect(credit.available).toBe(10);
    credit.grant(WINDOW_UPDATE_THRESHOLD);
    expect(credit.available).toBe(10 + WINDOW_UPDATE_THRESHOLD);
  });

  it("take waits until enough credit has come back", async () => {
    const credit = new SendCredit();
    await credit.take(INITIAL_WINDOW_BYTES - 100);
    let taken = false;
    const waiting = credit.take(200).then(() => (taken = true));
    credit.grant(50);
    await Promise.resolve();
    expect(taken).toBe(false);
    credit.grant(50);
    await waiting;
    expect(credit.available).toBe(0);
  });

  it("release wakes a waiting take for good", async () => {
    const credit = new SendCredit();
    await credit.take(INITIAL_WINDOW_BYTES);
    const waiting = credit.take(1);
    credit.release();
    await waiting;
    expect(credit.available).toBeGreaterThan(INITIAL_WINDOW_BYTES);
  });
});

describe("ReceiveCredit", () => {
  it("returns credit only once the threshold is consumed, all of it at once", () => {
    const credit = new ReceiveCredit();
    expect(credit.receive(WINDOW_UPDATE_THRESHOLD + 10)).toBe(true);
    expect(credit.consume(WINDOW_UPDATE_THRESHOLD - 1)).toBe(0);
    expect(credit.consume(11)).toBe(WINDOW_UPDATE_THRESHOLD + 10);
    expect(credit.consume(5)).toBe(0);
  });

  it("reports a peer that sends more than one window without credit back", () => {
    const credit = new ReceiveCredit();
    expect(credit.receive(INITIAL_WINDOW_BYTES)).toBe(true);
    expect(credit.receive(1)).toBe(false);
  });

  it("lets the peer send more once credit went back", () => {
    const credit = new ReceiveCredit();
    expect(credit.receive(INITIAL_WINDOW_BYTES)).toBe(true);
    expect(credit.consume(WINDOW_UPDATE_THRESHOLD)).toBe(WINDOW_UPDATE_THRESHOLD);
    expect(credit.receive(WINDOW_UPDATE_THRESHOLD)).toBe(true);
    expect(credit.receive(1)).toBe(false);
  });
});
