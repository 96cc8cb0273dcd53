// Stream dispatch: frames reach the stream their id names, with the checks both ends share.
import { describe, expect, it } from "vitest";
import { DataKind } from "./frames.ts";
import { StreamTable, type MuxStream } from "./stream-table.ts";

class RecordingStream implements MuxStream {
  readonly calls: unknown[][] = [];
  readonly carries: "http" | "websocket";
  constructor(carries: "http" | "websocket") {
    this.carries = carries;
  }
  onData(kind: DataKind, payload: Uint8Array) {
    this.calls.push(["data", kind, payload.byteLength]);
  }
  onWindow(bytes: number) {
    this.calls.push(["window", bytes]);
  }
  onEnd() {
    this.calls.push(["end"]);
  }
  onAbort(reason: string) {
    this.calls.push(["abort", reason]);
  }
  onWsClose(code: number, reason: string) {
    this.calls.push(["ws_close", code, reason]);
  }
  onDisconnect() {
    this.calls.push(["disconnect"]);
  }
}

/** A table holding each stream under its id, added in the order given. */
function tableOf(...entries: [id: number, stream: RecordingStream][]): StreamTable<RecordingStream> {
  const table = new StreamTable<RecordingStream>();
  for (const [id, stream] of entries) table.add(id, stream);
  return table;
}

describe("StreamTable", () => {
  it("routes every stream frame to its stream, and says when no stream has the id", () => {
    const stream = new RecordingStream("websocket");
    const table = tableOf([3, stream]);
    expect(table.route({ type: "window", stream: 3, bytes: 9 })).toBe(true);
    expect(table.route({ type: "end", stream: 3 })).toBe(true);
    expect(table.route({ type: "abort", stream: 3, reason: "r" })).toBe(true);
    expect(table.route({ type: "ws_close", stream: 3, code: 4000, reason: "bye" })).toBe(true);
    expect(table.route({ type: "end", stream: 4 })).toBe(false);
    expect(stream.calls).toEqual([["window", 9], ["end"], ["abort", "r"], ["ws_close", 4000, "bye"]]);
  });

  it("delivers data of the stream's kind, refuses the other kind, drops data for a stream no longer open", () => {
    const http = new RecordingStream("http");
    const ws = new RecordingStream("websocket");
    const table = tableOf([1, http], [2, ws]);
    const payload = new Uint8Array(4);
    expect(table.routeData({ kind: DataKind.body, stream: 1, payload })).toBeNull();
    expect(table.routeData({ kind: DataKind.wsText, stream: 2, payload })).toBeNull();
    expect(table.routeData({ kind: DataKind.wsBinary, stream: 2, payload })).toBeNull();
    expect(table.routeData({ kind: DataKind.wsText, stream: 1, payload })).toBe("data frame kind 2 on http stream 1");
    expect(table.routeData({ kind: DataKind.body, stream: 2, payload })).toBe("data frame kind 1 on websocket stream 2");
    expect(table.routeData({ kind: DataKind.body, stream: 9, payload })).toBeNull();
    expect(http.calls).toEqual([["data", DataKind.body, 4]]);
    expect(ws.calls).toEqual([["data", DataKind.wsText, 4], ["data", DataKind.wsBinary, 4]]);
  });

  it("remove forgets a stream only while its id still names it", () => {
    const old = new RecordingStream("http");
    const newer = new RecordingStream("http");
    const table = tableOf([1, old], [1, newer]);
    table.remove(1, old);
    expect(table.get(1)).toBe(newer);
    table.remove(1, newer);
    expect(table.size).toBe(0);
  });

  it("disconnectAll ends every stream and empties the table", () => {
    const streams = [new RecordingStream("http"), new RecordingStream("websocket")];
    const table = tableOf(...streams.map((stream, i): [number, RecordingStream] => [i + 1, stream]));
    table.disconnectAll();
    expect(table.size).toBe(0);
    expect(streams.map((s) => s.calls)).toEqual([[["disconnect"]], [["disconnect"]]]);
  });
});
