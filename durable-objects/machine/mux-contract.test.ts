// The multiplexer contract (test/support/mux/contract-suite.ts) run against the MachineDO's end: a
// ProxyBridge over a socket that decodes what it is sent, with a client that reads every response
// and echoes every WebSocket message.
import { decodeAgentMessage, decodeDataFrame, decodeServerMessage, encodeDataFrame, encodeMessage, type AgentMessage } from "../../protocol/index.ts";
import { runMuxContract, sentFrameLog, type MuxEndUnderTest } from "../../test/support/mux/contract-suite.ts";
import type { ProxyTarget } from "../contracts/proxy-request.ts";
import { ProxyBridge } from "./proxy-bridge.ts";

const target = (method: string): ProxyTarget => ({ instanceId: "i-aaaaaaaaaaaaaaaa", port: 8000, target: "/contract", method, headers: [] });

async function machineEnd(): Promise<MuxEndUnderTest> {
  const log = sentFrameLog();
  const socket = {
    send(data: string | Uint8Array) {
      if (typeof data === "string") return log.message(decodeServerMessage(data));
      const frame = decodeDataFrame(data);
      // The bridge releases a frame's buffer once sent (protocol/mux/buffer-release.ts): keep a copy, as workerd's socket does.
      log.data("error" in frame ? frame : { ...frame, payload: frame.payload.slice() });
    },
  } as unknown as WebSocket;
  const bridge = new ProxyBridge(() => socket);
  const closes = new Map<number, Promise<{ code: number; reason: string }>>();
  const readers: Promise<unknown>[] = [];

  const fromAgent = (message: AgentMessage) => {
    const decoded = decodeAgentMessage(encodeMessage(message));
    if (!decoded.ok) throw new Error(decoded.reason);
    if ("stream" in decoded.message && decoded.message.type !== "ssh_key_used") bridge.onMessage(decoded.message);
  };
  const lastOpened = (type: "http_request" | "ws_open"): number => {
    const frame = log.sent.findLast((f) => "message" in f && f.message.type === type);
    if (!frame || !("message" in frame) || !("stream" in frame.message)) throw new Error(`no ${type} sent`);
    return frame.message.stream;
  };

  return {
    ...log,
    settlesStreams: true,
    get openStreams() {
      return bridge.openStreams;
    },
    async openHttp({ sends }) {
      let left = sends;
      const body: ReadableStream<Uint8Array> | null = sends === 0 ? null : new ReadableStream({
        type: "bytes",
        pull(controller) {
          const size = Math.min(64 * 1024, left);
          controller.enqueue(new Uint8Array(size));
          left -= size;
          if (left === 0) controller.close();
        },
      });
      const pending = bridge.openHttp(target(body ? "POST" : "GET"), { instanceId: "i-aaaaaaaaaaaaaaaa", accountId: "a-contract" }, body);
      const stream = lastOpened("http_request");
      // The agent answers at once, and the client reads whatever response body the peer sends.
      fromAgent({ type: "http_response", stream, status: 200, headers: [] });
      readers.push((await pending).arrayBuffer().catch(() => undefined));
      return stream;
    },
    async openWebSocket() {
      const pending = bridge.openWebSocket(target("GET"), { instanceId: "i-aaaaaaaaaaaaaaaa", accountId: "a-contract" }, []);
      const stream = lastOpened("ws_open");
      fromAgent({ type: "ws_accepted", stream, protocol: "" });
      const client = (await pending).webSocket;
      if (!client) throw new Error("no WebSocket in the 101 response");
      client.binaryType = "arraybuffer";
      client.accept();
      client.addEventListener("message", (event) => client.send(event.data as string | ArrayBuffer));
      closes.set(stream, new Promise((resolve) => client.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }))));
      return stream;
    },
    localClose: (stream) => closes.get(stream) ?? Promise.reject(new Error(`no WebSocket stream ${stream}`)),
    deliver: fromAgent,
    deliverData(kind, stream, payload) {
      return bridge.onBinary(encodeDataFrame(kind, stream, payload));
    },
    disconnect: () => bridge.abortAll(),
    async close() {
      bridge.abortAll();
      await Promise.all(readers);
    },
  };
}

runMuxContract("the MachineDO's ProxyBridge", machineEnd);
