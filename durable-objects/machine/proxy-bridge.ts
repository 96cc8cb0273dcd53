// Multiplexes proxied HTTP exchanges and WebSockets over the one agent socket, by stream id.
// Streams live in memory only: an open stream keeps the MachineDO awake, and when the agent socket
// goes away every stream is failed at once so nothing waits forever.
import { decodeDataFrame, DataKind, type DataFrame } from "../../protocol/frames.ts";
import type { AgentMessage, ServerMessage } from "../../protocol/messages.ts";
import { HttpStream, upstreamUnavailable, type StreamLink } from "./http-stream.ts";
import { WsStream } from "./ws-stream.ts";

export interface ProxyTarget {
  instanceId: string;
  port: number;
  /** Path and query exactly as the client sent them. */
  target: string;
  method: string;
  headers: [string, string][];
}

type StreamMessage = Extract<AgentMessage, { stream: number }>;

export class ProxyBridge {
  private readonly streams = new Map<number, HttpStream | WsStream>();
  private nextId = 1;

  private readonly socket: () => WebSocket | null;

  constructor(socket: () => WebSocket | null) {
    this.socket = socket;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  openHttp(target: ProxyTarget, body: ReadableStream<Uint8Array> | null): Promise<Response> {
    const link = this.link();
    if (!link) return Promise.resolve(upstreamUnavailable());
    const id = this.allocate();
    const stream = new HttpStream(id, link, target.method);
    this.streams.set(id, stream);
    link.sendControl({
      type: "http_request", stream: id, instance_id: target.instanceId, port: target.port,
      method: target.method, path: target.target, headers: target.headers, has_body: body !== null,
    });
    if (body) void stream.pumpBody(body);
    return stream.head;
  }

  openWebSocket(target: ProxyTarget, protocols: string[]): Promise<Response> {
    const link = this.link();
    if (!link) return Promise.resolve(upstreamUnavailable());
    const id = this.allocate();
    const stream = new WsStream(id, link);
    this.streams.set(id, stream);
    link.sendControl({
      type: "ws_open", stream: id, instance_id: target.instanceId, port: target.port,
      path: target.target, headers: target.headers, protocols,
    });
    return stream.accepted;
  }

  /** Routes a stream control message from the agent; false when no such stream is open. */
  onMessage(message: StreamMessage): boolean {
    const stream = this.streams.get(message.stream);
    if (!stream) return false;
    switch (message.type) {
      case "http_response":
        if (stream instanceof HttpStream) stream.onResponseHead(message.status, message.headers);
        break;
      case "ws_accepted":
        if (stream instanceof WsStream) stream.onAccepted(message.protocol);
        break;
      case "window":
        stream.onWindow(message.bytes);
        break;
      case "end":
        if (stream instanceof HttpStream) stream.onEnd();
        break;
      case "abort":
        stream.onAbort(message.reason);
        break;
      case "ws_close":
        if (stream instanceof WsStream) stream.onClose(message.code, message.reason);
        break;
    }
    return true;
  }

  /** Routes a binary frame; returns a reason when it is not acceptable. */
  onBinary(bytes: Uint8Array): string | null {
    const frame: DataFrame | { error: string } = decodeDataFrame(bytes);
    if ("error" in frame) return frame.error;
    const stream = this.streams.get(frame.stream);
    if (!stream) return null; // late data for a stream already finished: expected, dropped
    if (stream instanceof HttpStream) {
      if (frame.kind !== DataKind.body) return `kind ${frame.kind} on an HTTP stream`;
      stream.onData(frame.payload);
    } else {
      stream.onData(frame.kind, frame.payload);
    }
    return null;
  }

  /** The agent socket is gone: fail every stream (clients see a 502 or a broken body). */
  abortAll(): void {
    for (const stream of [...this.streams.values()]) {
      if (stream instanceof HttpStream) stream.onAbort("the host disconnected");
      else stream.onAbort("agent disconnected");
    }
    this.streams.clear();
  }

  private allocate(): number {
    const id = this.nextId;
    this.nextId = this.nextId >= 0xfffffffe ? 1 : this.nextId + 1;
    return id;
  }

  private link(): StreamLink | null {
    const socket = this.socket();
    if (!socket) return null;
    return {
      sendControl: (message: ServerMessage) => sendQuietly(socket, JSON.stringify(message)),
      sendData: (frame) => sendQuietly(socket, frame),
      close: (id) => this.streams.delete(id),
    };
  }
}

function sendQuietly(socket: WebSocket, data: string | Uint8Array): void {
  try {
    socket.send(data);
  } catch {
    // The socket closed under us: webSocketClose will fail the streams.
  }
}
