// The base every MachineDO stream kind builds on: flow control both ways, finishing once and settling
// the agent's credit as it does, through a kind made for the test and a link that records what it sends.
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { DataKind, decodeDataFrame, INITIAL_WINDOW_BYTES, WINDOW_UPDATE_THRESHOLD, type DataFrame, type ServerMessage } from "../../protocol/index.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { ReadBufferBudget } from "./body-reads.ts";
import { BridgeStream, type StreamLink } from "./bridge-stream.ts";
import { CONNECTION_UPLOAD_BYTES, INSTANCE_UPLOAD_BYTES, INSTANCE_UPLOAD_SHARE_BYTES, UploadBudget, type UploadAllowance } from "./upload-budget.ts";

const MB = 1_000_000;
const MiB = 1024 * 1024;

/** A kind that queues what it is handed, sends bodies, and hands the agent's data on at once (unless its client `stalled`). */
class TestStream extends BridgeStream {
  readonly carries = "http";
  stalled = false;
  onData(_kind: DataKind, payload: Uint8Array): void {
    if (!this.received(payload.byteLength)) {
      this.sendAbort("over the window");
      return this.finish();
    }
    if (!this.stalled) this.handedOn(payload.byteLength);
  }
  onAbort(): void {
    this.finish();
  }
  onDisconnect(): void {
    this.finish();
  }
  revoke(): void {
    this.finish();
  }
  push(payload: Uint8Array): void {
    this.queue(DataKind.wsBinary, payload);
  }
  send(body: ReadableStream<Uint8Array>, admit: (total: number) => boolean = () => true): Promise<void> {
    return this.sendBody(DataKind.body, body, new ReadBufferBudget().roomFor("acc_test"), admit);
  }
  end(): void {
    this.finish();
  }
}

/** A stream whose link records what it sends, counted against `upload` (by default a budget of its own). */
function recordedStream(upload: UploadAllowance = new UploadBudget().allowanceFor("i-test")) {
  const controls: ServerMessage[] = [];
  const frames: DataFrame[] = [];
  let closes = 0;
  const link: StreamLink = {
    sendControl: (message) => controls.push(message),
    sendData: (bytes) => {
      const frame = decodeDataFrame(bytes);
      if ("error" in frame) throw new Error(frame.error);
      frames.push({ ...frame, payload: frame.payload.slice() });
    },
    close: () => closes++,
    logIds: () => ({ request_id: "req_test" }),
    upload,
  };
  return { stream: new TestStream(7, link), controls, frames, closes: () => closes, sentBytes: () => frames.reduce((n, f) => n + f.payload.byteLength, 0) };
}

/** A byte stream of `total` zero bytes, in chunks of `chunk`. */
function body(total: number, chunk = 256 * 1024): ReadableStream<Uint8Array> {
  let left = total;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const size = Math.min(chunk, left);
      controller.enqueue(new Uint8Array(size));
      left -= size;
      if (left === 0) controller.close();
    },
  });
}

describe("BridgeStream", () => {
  it("sends queued data in order, within the agent's credit, and the rest as its windows come back", () => {
    const { stream, frames } = recordedStream();
    for (let i = 1; i <= 6; i++) stream.push(new Uint8Array(MB).fill(i));
    expect(frames.map((f) => f.payload[0])).toEqual([1, 2, 3, 4]);
    stream.onWindow(MB - (INITIAL_WINDOW_BYTES - 4 * MB) - 1);
    expect(frames).toHaveLength(4);
    stream.onWindow(1);
    expect(frames.map((f) => f.payload[0])).toEqual([1, 2, 3, 4, 5]);
    stream.onWindow(MB);
    expect(frames.map((f) => [f.kind, f.stream, f.payload[0]])).toEqual([1, 2, 3, 4, 5, 6].map((i) => [DataKind.wsBinary, 7, i]));
  });

  it("sends a body in frames within the agent's credit, waiting for more, then end", async () => {
    const { stream, controls, sentBytes } = recordedStream();
    const total = INITIAL_WINDOW_BYTES + 3 * MB;
    const sending = stream.send(body(total));
    await until(async () => sentBytes(), (sent) => sent === INITIAL_WINDOW_BYTES, "the first window");
    expect(controls).toEqual([]);
    stream.onWindow(3 * MB);
    await sending;
    expect(sentBytes()).toBe(total);
    expect(controls).toEqual([{ type: "end", stream: 7 }]);
  });

  it("stops sending a body, without end, when `admit` refuses it or the stream finishes while it waits for credit", async () => {
    const refused = recordedStream();
    const admitted: number[] = [];
    await refused.stream.send(body(3 * MB), (total) => total <= MB && admitted.push(total) > 0);
    expect([refused.sentBytes(), refused.controls]).toEqual([admitted.at(-1), []]);
    expect(refused.sentBytes()).toBeGreaterThan(0);

    const finished = recordedStream();
    const sending = finished.stream.send(body(2 * INITIAL_WINDOW_BYTES));
    await until(async () => finished.sentBytes(), (sent) => sent === INITIAL_WINDOW_BYTES, "the first window");
    finished.stream.end();
    await sending;
    expect([finished.sentBytes(), finished.controls, finished.closes()]).toEqual([INITIAL_WINDOW_BYTES, [], 1]);
  });

  it("returns credit for the agent's data as it is handed on, in batches of at least the update threshold", () => {
    const { stream, controls } = recordedStream();
    const piece = WINDOW_UPDATE_THRESHOLD / 4;
    for (let i = 0; i < 10; i++) stream.onData(DataKind.body, new Uint8Array(piece));
    expect(controls).toEqual([
      { type: "window", stream: 7, bytes: WINDOW_UPDATE_THRESHOLD },
      { type: "window", stream: 7, bytes: WINDOW_UPDATE_THRESHOLD },
    ]);
  });

  it("refuses the agent's data beyond the window it was granted, with one error line naming the stream", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    onTestFinished(() => errors.mockRestore());
    const { stream, controls, closes } = recordedStream();
    stream.stalled = true;
    for (let i = 0; i < 4; i++) stream.onData(DataKind.body, new Uint8Array(INITIAL_WINDOW_BYTES / 4));
    expect(controls).toEqual([]);
    stream.onData(DataKind.body, new Uint8Array(1));
    expect(controls).toEqual([{ type: "abort", stream: 7, reason: "over the window" }, { type: "window", stream: 7, bytes: INITIAL_WINDOW_BYTES + 1 }]);
    expect(closes()).toBe(1);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      expect.objectContaining({ level: "error", msg: "the agent sent more than the flow-control window", request_id: "req_test" }),
    ]);
  });

  it("returns, as it finishes, all the credit it still owes for the agent's data, handed on or dropped, and nothing after", () => {
    const handedOn = recordedStream();
    handedOn.stream.onData(DataKind.body, new Uint8Array(WINDOW_UPDATE_THRESHOLD / 4));
    expect(handedOn.controls).toEqual([]);
    handedOn.stream.end();
    expect(handedOn.controls).toEqual([{ type: "window", stream: 7, bytes: WINDOW_UPDATE_THRESHOLD / 4 }]);

    const dropped = recordedStream();
    dropped.stream.onData(DataKind.body, new Uint8Array(WINDOW_UPDATE_THRESHOLD + 1));
    dropped.stream.stalled = true;
    dropped.stream.onData(DataKind.body, new Uint8Array(3 * MB));
    dropped.stream.onDisconnect();
    dropped.stream.end();
    expect(dropped.controls).toEqual([
      { type: "window", stream: 7, bytes: WINDOW_UPDATE_THRESHOLD + 1 },
      { type: "window", stream: 7, bytes: 3 * MB },
    ]);
  });

  it("finishes once: the bridge forgets it once, and queued data never goes", () => {
    const { stream, frames, closes } = recordedStream();
    for (let i = 0; i < 5; i++) stream.push(new Uint8Array(MB));
    stream.end();
    stream.onDisconnect();
    stream.onWindow(INITIAL_WINDOW_BYTES);
    expect([frames.length, closes()]).toEqual([4, 1]);
  });
});

describe("BridgeStream's upload budget", () => {
  const piece = 512 * 1024;
  /** `bytes` handed to the stream's queue in half-MiB messages. */
  const pushed = (recorded: ReturnType<typeof recordedStream>, bytes: number) => {
    for (let i = 0; i < bytes / piece; i++) recorded.stream.push(new Uint8Array(piece));
    return recorded;
  };
  /** `windows` streams of `instance`, each with a full window out and a MiB more queued. */
  const sitting = (budget: UploadBudget, instance: string, windows: number) =>
    Array.from({ length: windows }, () => pushed(recordedStream(budget.allowanceFor(instance)), INITIAL_WINDOW_BYTES + MiB));

  it("past its instance's share sends only a stream's first MiB, past the limit nothing, while other instances send; waiters go first as room comes back", () => {
    const budget = new UploadBudget();
    const [first, second] = sitting(budget, "i-a", INSTANCE_UPLOAD_SHARE_BYTES / INITIAL_WINDOW_BYTES);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_UPLOAD_SHARE_BYTES);
    const starting = Array.from({ length: 5 }, () => pushed(recordedStream(budget.allowanceFor("i-a")), 2 * MiB));
    expect(starting.map((s) => s.sentBytes())).toEqual([MiB, MiB, MiB, MiB, 0]);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_UPLOAD_BYTES);
    expect(pushed(recordedStream(budget.allowanceFor("i-b")), INITIAL_WINDOW_BYTES).sentBytes()).toBe(INITIAL_WINDOW_BYTES);

    // Room within the limit, not below the share: the stream that waited with nothing out goes; the
    // stream whose window came back, past the share, does not.
    first!.stream.onWindow(2 * MiB);
    expect(starting.map((s) => s.sentBytes())).toEqual([MiB, MiB, MiB, MiB, MiB]);
    expect(first!.sentBytes()).toBe(INITIAL_WINDOW_BYTES);
    // Below the share: the first waiter sends the rest of its data, then the returning stream, starting over, its own.
    second!.stream.onWindow(INITIAL_WINDOW_BYTES);
    expect(starting.map((s) => s.sentBytes())).toEqual([2 * MiB, MiB, MiB, MiB, MiB]);
    expect(second!.sentBytes()).toBe(INITIAL_WINDOW_BYTES + MiB);
    expect(budget.unacknowledged("i-a")).toBe(INSTANCE_UPLOAD_SHARE_BYTES + MiB);
  });

  it("holds every instance once the connection's limit is out, and lets them on as it comes back", () => {
    const budget = new UploadBudget();
    // Two instances at their limit (two full windows and four streams' first MiB), a third at its share.
    for (const instance of ["i-a", "i-b"]) {
      sitting(budget, instance, 2);
      for (let i = 0; i < 4; i++) pushed(recordedStream(budget.allowanceFor(instance)), MiB);
    }
    const third = sitting(budget, "i-c", 2);
    expect(budget.unacknowledged()).toBe(CONNECTION_UPLOAD_BYTES);
    const late = pushed(recordedStream(budget.allowanceFor("i-d")), MiB);
    expect(late.sentBytes()).toBe(0);
    third[0]!.stream.onWindow(piece);
    expect(late.sentBytes()).toBe(piece);
  });

  it("holds a body as it holds queued data, goes on as room comes back, and a stream finishing while it waits gives its part back", async () => {
    const budget = new UploadBudget();
    const [first] = sitting(budget, "i-a", 2);
    const uploading = recordedStream(budget.allowanceFor("i-a"));
    const sending = uploading.stream.send(body(3 * MiB));
    const waits = await until(async () => uploading.sentBytes(), (sent) => sent >= MiB, "the body's first MiB");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uploading.sentBytes()).toBe(waits);
    first!.stream.onWindow(INITIAL_WINDOW_BYTES);
    await sending;
    expect([uploading.sentBytes(), uploading.controls]).toEqual([3 * MiB, [{ type: "end", stream: 7 }]]);

    const held = recordedStream(budget.allowanceFor("i-a"));
    sitting(budget, "i-a", 1);
    const stopped = held.stream.send(body(3 * MiB));
    await until(async () => held.sentBytes(), (sent) => sent >= MiB, "the second body's first MiB");
    const before = budget.unacknowledged("i-a");
    held.stream.end();
    await stopped;
    expect(held.controls).toEqual([]);
    expect(budget.unacknowledged("i-a")).toBe(before - held.sentBytes());
  });
});
