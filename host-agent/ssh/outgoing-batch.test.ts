// The SSH connection's outgoing batch: the packets of one turn leave as one message; while the
// MachineDO has a credit threshold's worth unacknowledged, more is gathered, until its credit comes
// back or a message is full.
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { WINDOW_UPDATE_THRESHOLD } from "../../protocol/mux/flow-control.ts";
import { MAX_WS_MESSAGE_BYTES } from "../../protocol/mux/frames.ts";
import { OutgoingBatch } from "./outgoing-batch.ts";

function batch(unacknowledged = 0) {
  const sent: Buffer[] = [];
  const state = { unacknowledged };
  const outgoing = new OutgoingBatch((payload) => sent.push(payload), () => state.unacknowledged);
  return { outgoing, sent, state };
}

describe("OutgoingBatch", () => {
  it("sends the writes of one turn as one message at its end", async () => {
    const { outgoing, sent } = batch();
    outgoing.push(Buffer.from("ab"));
    outgoing.push(Buffer.from("cd"));
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent.map(String)).toEqual(["abcd"]);
    outgoing.push(Buffer.from("e"));
    await nextTurn();
    expect(sent.map(String)).toEqual(["abcd", "e"]);
  });

  it("gathers across turns while a threshold's worth is unacknowledged, and sends it all once credit returns", async () => {
    const { outgoing, sent, state } = batch(WINDOW_UPDATE_THRESHOLD);
    outgoing.push(Buffer.from("one"));
    await nextTurn();
    outgoing.push(Buffer.from("two"));
    await nextTurn();
    expect(sent).toEqual([]);
    state.unacknowledged = WINDOW_UPDATE_THRESHOLD - 1;
    outgoing.flush();
    expect(sent.map(String)).toEqual(["onetwo"]);
  });

  it("sends a full message at once, even while held", () => {
    const { outgoing, sent } = batch(WINDOW_UPDATE_THRESHOLD);
    outgoing.push(Buffer.alloc(MAX_WS_MESSAGE_BYTES - 1));
    expect(sent).toEqual([]);
    outgoing.push(Buffer.alloc(1));
    expect(sent.map((payload) => payload.byteLength)).toEqual([MAX_WS_MESSAGE_BYTES]);
  });

  it("drops what it holds when cleared (the stream is over)", async () => {
    const { outgoing, sent } = batch();
    outgoing.push(Buffer.from("late"));
    outgoing.clear();
    await nextTurn();
    expect(sent).toEqual([]);
  });
});
