// What clients' WebSocket messages may wait for in the MachineDO: per stream, per account on the
// host and in all, through the bridge with real WebSocketPairs and an agent that returns no credit.
import { describe, expect, it } from "vitest";
import { DATA_HEADER_BYTES, INITIAL_WINDOW_BYTES, MAX_WS_MESSAGE_BYTES } from "../../protocol/index.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { ProxyBridge } from "./proxy-bridge.ts";
import { ACCOUNT_QUEUE_BYTES, MACHINE_QUEUE_BYTES, QueueBudget, STREAM_QUEUE_BYTES } from "./queue-budget.ts";

const MiB = 1024 * 1024;

describe("QueueBudget", () => {
  it("refuses what would pass the stream's, the account's or the host's bound, naming which", () => {
    const budget = new QueueBudget();
    expect(budget.refusal("a", STREAM_QUEUE_BYTES - MiB, MiB)).toBeNull();
    expect(budget.refusal("a", STREAM_QUEUE_BYTES, 1)).toBe("sending faster than the upstream reads");
    budget.change("a", ACCOUNT_QUEUE_BYTES);
    expect(budget.refusal("a", 0, 1)).toBe("the account's sockets on this host send faster than their upstreams read");
    expect(budget.refusal("b", 0, MACHINE_QUEUE_BYTES - ACCOUNT_QUEUE_BYTES)).toBeNull();
    budget.change("b", MACHINE_QUEUE_BYTES - ACCOUNT_QUEUE_BYTES);
    expect(budget.refusal("c", 0, 1)).toBe("this host's sockets send faster than their upstreams read");
    budget.change("a", -ACCOUNT_QUEUE_BYTES);
    expect([budget.queued(), budget.queued("a"), budget.refusal("c", 0, MiB)]).toEqual([MACHINE_QUEUE_BYTES - ACCOUNT_QUEUE_BYTES, 0, null]);
  });
});

/** A bridge whose agent accepts every WebSocket and returns no credit; each socket's client end, accepted. */
function bridgeWithSilentAgent() {
  let opened = 0;
  let received = 0;
  const agentSocket = {
    send: (data: string | Uint8Array) => {
      if (typeof data !== "string") return void (received += data.byteLength - DATA_HEADER_BYTES);
      const message = JSON.parse(data) as { type: string; stream: number };
      if (message.type !== "ws_open") return;
      opened = message.stream;
      queueMicrotask(() => bridge.onMessage({ type: "ws_accepted", stream: message.stream, protocol: "" }));
    },
  } as unknown as WebSocket;
  const bridge = new ProxyBridge(() => agentSocket);
  let instance = 0;
  return {
    bridge,
    /** The bytes of messages the agent was sent, all streams together. */
    received: () => received,
    /** A client's socket to an instance of `accountId`, with what closes it. */
    async open(accountId: string) {
      const instanceId = `i-queue${String(instance++).padStart(11, "0")}`;
      const response = await bridge.openWebSocket({ instanceId, port: 8000, target: "/ws", method: "GET", headers: [] }, { instanceId, accountId }, []);
      const client = response.webSocket!;
      client.accept();
      const closed: { code?: number; reason?: string } = {};
      client.addEventListener("close", (event) => Object.assign(closed, { code: event.code, reason: event.reason }));
      return { client, closed, stream: opened };
    },
  };
}

/**
 * Sends `bytes` in messages as big as the proxy takes, and waits until the MachineDO has had them all:
 * a WebSocketPair passes them without I/O, and workerd runs a timer only once no other work is ready.
 */
async function sendAndSettle(socket: { client: WebSocket; closed: { code?: number } }, bytes: number): Promise<void> {
  for (let sent = 0; sent < bytes; sent += MAX_WS_MESSAGE_BYTES) socket.client.send(new Uint8Array(Math.min(MAX_WS_MESSAGE_BYTES, bytes - sent)));
  await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("a client's messages waiting for an upstream that does not read", () => {
  it("close the stream past its own bound, with 1008", async () => {
    const { open } = bridgeWithSilentAgent();
    const socket = await open("a-stream");
    await sendAndSettle(socket, INITIAL_WINDOW_BYTES + STREAM_QUEUE_BYTES - MAX_WS_MESSAGE_BYTES);
    expect(socket.closed.code).toBeUndefined();
    await sendAndSettle(socket, 2 * MAX_WS_MESSAGE_BYTES);
    await until(async () => socket.closed.code, (code) => code !== undefined, "the close");
    expect(socket.closed).toEqual({ code: 1008, reason: "sending faster than the upstream reads" });
  });

  it("close the stream that takes its account past the account's bound, not the account's others, which may queue again once it is gone", async () => {
    const { open } = bridgeWithSilentAgent();
    const first = await open("a-account");
    const second = await open("a-account");
    const queued = ACCOUNT_QUEUE_BYTES / 2;
    await sendAndSettle(first, INITIAL_WINDOW_BYTES + queued);
    await sendAndSettle(second, INITIAL_WINDOW_BYTES + queued - MAX_WS_MESSAGE_BYTES);
    expect([first.closed.code, second.closed.code]).toEqual([undefined, undefined]);
    await sendAndSettle(second, 2 * MAX_WS_MESSAGE_BYTES);
    await until(async () => second.closed.code, (code) => code !== undefined, "the second socket's close");
    expect(second.closed).toEqual({ code: 1008, reason: "the account's sockets on this host send faster than their upstreams read" });
    await sendAndSettle(first, 2 * MiB);
    expect(first.closed.code).toBeUndefined();
  });

  it("close the stream that takes the host past its bound, whoever else holds it", async () => {
    const { open } = bridgeWithSilentAgent();
    const holders = [await open("a-host-1"), await open("a-host-2")];
    // Each within its own bound and its account's, together a little short of the host's.
    for (const holder of holders) await sendAndSettle(holder, INITIAL_WINDOW_BYTES + MACHINE_QUEUE_BYTES / 2 - MiB);
    const late = await open("a-host-3");
    await sendAndSettle(late, INITIAL_WINDOW_BYTES);
    expect(late.closed.code).toBeUndefined();
    await sendAndSettle(late, 3 * MiB);
    await until(async () => late.closed.code, (code) => code !== undefined, "the late socket's close");
    expect(late.closed).toEqual({ code: 1008, reason: "this host's sockets send faster than their upstreams read" });
    expect(holders.map((holder) => holder.closed.code)).toEqual([undefined, undefined]);
  });

  it("give their room back as they are sent on to the agent", async () => {
    const { bridge, open, received } = bridgeWithSilentAgent();
    const socket = await open("a-drain");
    await sendAndSettle(socket, INITIAL_WINDOW_BYTES + STREAM_QUEUE_BYTES - MAX_WS_MESSAGE_BYTES);
    // The agent hands on all it is sent, and says so, until nothing more comes.
    for (let acknowledged = 0; acknowledged < received(); ) {
      const bytes = received() - acknowledged;
      acknowledged += bytes;
      bridge.onMessage({ type: "window", stream: socket.stream, bytes });
    }
    await sendAndSettle(socket, STREAM_QUEUE_BYTES - 2 * MAX_WS_MESSAGE_BYTES);
    expect(socket.closed.code).toBeUndefined();
  });

  it("give back all a stream held as it closes, and take nothing for the messages that arrive after", async () => {
    const { open } = bridgeWithSilentAgent();
    const flooding = await open("a-after");
    await sendAndSettle(flooding, INITIAL_WINDOW_BYTES + 2 * STREAM_QUEUE_BYTES);
    expect(flooding.closed.code).toBe(1008);
    const next = await open("a-after");
    await sendAndSettle(next, INITIAL_WINDOW_BYTES + STREAM_QUEUE_BYTES - MAX_WS_MESSAGE_BYTES);
    expect(next.closed.code).toBeUndefined();
  });
});
