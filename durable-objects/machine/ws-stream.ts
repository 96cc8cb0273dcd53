// One proxied WebSocket: the client's socket (a WebSocketPair end accepted here) bridged to the
// upstream socket the agent opens. Messages keep their type; close codes and reasons cross both ways.
// Credit as for HTTP bodies, counted in message bytes: messages to the agent wait for its credit;
// messages handed to the client return credit to the agent.
import { DataKind, encodeDataFrame, INITIAL_WINDOW_BYTES, WINDOW_UPDATE_THRESHOLD } from "../../protocol/index.ts";
import { upstreamUnavailable, type StreamLink } from "./http-stream.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Close codes that may not be sent in a close frame (RFC 6455 §7.4.1). */
const RESERVED_CLOSE_CODES = new Set([1005, 1006, 1015]);

export class WsStream {
  private client: WebSocket | null = null;
  private closed = false;
  private sendCredit = INITIAL_WINDOW_BYTES;
  private readonly waiting: { frame: Uint8Array; size: number }[] = [];
  private consumedSinceWindow = 0;
  private resolveAccept!: (response: Response) => void;
  readonly accepted = new Promise<Response>((resolve) => (this.resolveAccept = resolve));

  private readonly id: number;
  private readonly link: StreamLink;

  constructor(id: number, link: StreamLink) {
    this.id = id;
    this.link = link;
  }

  onAccepted(protocol: string): void {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    // At this compatibility date binary messages would arrive as Blobs; the bridge forwards bytes.
    server.binaryType = "arraybuffer";
    server.accept();
    this.client = server;
    server.addEventListener("message", (event) => {
      const kind = typeof event.data === "string" ? DataKind.wsText : DataKind.wsBinary;
      const payload = typeof event.data === "string" ? encoder.encode(event.data) : new Uint8Array(event.data as ArrayBuffer);
      if (payload.byteLength > INITIAL_WINDOW_BYTES) return this.onClose(1009, "message too big for the proxy");
      this.waiting.push({ frame: encodeDataFrame(kind, this.id, payload), size: payload.byteLength });
      this.flush();
    });
    server.addEventListener("close", (event) => {
      if (this.closed) return;
      this.link.sendControl({ type: "ws_close", stream: this.id, code: event.code, reason: event.reason });
      this.finish();
    });
    server.addEventListener("error", () => this.abort("client socket error"));
    const headers = protocol ? { "sec-websocket-protocol": protocol } : undefined;
    this.resolveAccept(new Response(null, { status: 101, webSocket: client, headers }));
  }

  onData(kind: number, payload: Uint8Array): void {
    if (!this.client || this.closed) return;
    this.client.send(kind === DataKind.wsText ? decoder.decode(payload) : payload.slice());
    this.consumedSinceWindow += payload.byteLength;
    if (this.consumedSinceWindow >= WINDOW_UPDATE_THRESHOLD) {
      this.link.sendControl({ type: "window", stream: this.id, bytes: this.consumedSinceWindow });
      this.consumedSinceWindow = 0;
    }
  }

  onWindow(bytes: number): void {
    this.sendCredit += bytes;
    this.flush();
  }

  private flush(): void {
    while (!this.closed && this.waiting[0] && this.waiting[0].size <= this.sendCredit) {
      const { frame, size } = this.waiting.shift()!;
      this.sendCredit -= size;
      this.link.sendData(frame);
    }
  }

  onClose(code: number, reason: string): void {
    if (this.closed) return;
    const client = this.client;
    this.finish();
    if (client) closeQuietly(client, RESERVED_CLOSE_CODES.has(code) ? 1000 : code, reason);
  }

  onAbort(reason: string): void {
    if (!this.client) {
      this.finish();
      this.resolveAccept(reason === "upstream_unavailable" ? upstreamUnavailable() : upstreamUnavailable(reason));
      return;
    }
    this.onClose(1011, "upstream failed");
  }

  /** The proxy side gave up (agent gone). */
  abort(reason: string): void {
    if (this.closed) return;
    this.link.sendControl({ type: "abort", stream: this.id, reason });
    this.onAbort(reason === "upstream_unavailable" ? reason : "agent disconnected");
  }

  private finish(): void {
    this.closed = true;
    this.link.close(this.id);
  }
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed by the other side: nothing left to tell it.
  }
}
