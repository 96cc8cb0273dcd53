// One proxied WebSocket: messages both ways as wsText/wsBinary data frames (one frame per message),
// close codes passed through, and upstream reads paused while the MachineDO's credit is exhausted.
import WebSocket, { type RawData } from "ws";
import type { ServerMessage } from "../../protocol/messages.ts";
import { closeQuietly, MESSAGE_TOO_BIG } from "../../protocol/mux/close-codes.ts";
import { DataKind, MAX_WS_MESSAGE_BYTES } from "../../protocol/mux/frames.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import { AgentStream } from "./agent-stream.ts";
import { CreditedSender } from "./credited-sender.ts";
import { upstreamWsHeaders } from "./proxy-headers.ts";

export type WsOpenMessage = Extract<ServerMessage, { type: "ws_open" }>;

const TOO_BIG_ERROR = "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH";

export class WsProxyStream extends AgentStream<WsOpenMessage> {
  readonly carries = "websocket";
  #upstream: WebSocket | null = null;
  #accepted = false;
  /** Upstream messages to the MachineDO; upstream reads are paused while any wait for credit. */
  readonly #sender = new CreditedSender(this.transport, this.message.stream, {
    onBacklog: () => this.#upstream?.pause(),
    onDrained: () => this.#upstream?.resume(),
  });

  connect(endpoint: Endpoint | null): void {
    if (this.closed) return;
    if (!endpoint) return this.fail("upstream_unavailable");
    const { path, protocols, headers, port } = this.message;
    let upstream: WebSocket;
    try {
      upstream = new WebSocket(`ws://${endpoint.host}:${endpoint.port}${path}`, protocols, {
        headers: upstreamWsHeaders(headers, port),
        perMessageDeflate: false,
        // The ws client refuses bigger messages before buffering them, keeping memory bounded.
        maxPayload: MAX_WS_MESSAGE_BYTES,
      });
    } catch {
      return this.fail("upstream_unavailable");
    }
    this.#upstream = upstream;
    upstream.on("unexpected-response", (req, res) => {
      res.resume();
      req.destroy();
      this.fail("upstream_unavailable");
    });
    upstream.on("open", () => {
      this.#accepted = true;
      this.transport.send({ type: "ws_accepted", stream: this.message.stream, protocol: upstream.protocol });
    });
    upstream.on("message", (data, isBinary) => this.#relayUpstreamMessage(data, isBinary));
    upstream.on("error", (error: Error & { code?: string }) => {
      if (!this.#accepted) return this.fail("upstream_unavailable");
      if (error.code !== TOO_BIG_ERROR || this.closed) return;
      this.transport.send({ type: "ws_close", stream: this.message.stream, code: MESSAGE_TOO_BIG, reason: "message too big for the proxy" });
      this.finish();
    });
    upstream.on("close", (code, reason) => {
      if (!this.#accepted) return this.fail("upstream_unavailable");
      if (this.closed) return;
      this.transport.send({ type: "ws_close", stream: this.message.stream, code, reason: reason.toString("utf8") });
      this.finish();
    });
  }

  onData(kind: DataKind, payload: Uint8Array): void {
    const upstream = this.#upstream;
    if (this.closed || !upstream || upstream.readyState !== WebSocket.OPEN) return;
    if (!this.receive(payload.byteLength)) return this.fail("WebSocket data exceeded the flow-control window");
    const data = kind === DataKind.wsText ? Buffer.from(payload).toString("utf8") : payload;
    upstream.send(data, () => this.consumed(payload.byteLength));
  }

  /** The client closed: pass its code and reason on; the upstream's answering close comes back as ws_close. */
  override onWsClose(code: number, reason: string): void {
    const upstream = this.#upstream;
    if (this.closed) return;
    if (!upstream || upstream.readyState === WebSocket.CONNECTING) return this.close();
    closeQuietly(upstream, code, reason);
  }

  onWindow(bytes: number): void {
    this.#sender.grant(bytes);
  }

  protected release(): void {
    this.#upstream?.terminate();
  }

  /** Upstream messages still waiting for credit have nowhere to go. */
  protected override finish(): void {
    this.#sender.stop();
    super.finish();
  }

  #relayUpstreamMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    const payload = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
    this.#sender.send(isBinary ? DataKind.wsBinary : DataKind.wsText, payload);
  }
}
