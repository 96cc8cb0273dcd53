// The agent's end of the proxy multiplexer: opens HTTP and WebSocket streams to container ports and
// routes the MachineDO's stream frames (data, window, end, abort, ws_close) to them by stream id.
import { DataKind, type DataFrame } from "../../protocol/frames.ts";
import type { ServerMessage } from "../../protocol/messages.ts";
import type { Logger } from "../log.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { HttpProxyStream, type HttpRequestMessage } from "./http-proxy-stream.ts";
import type { StreamTransport } from "./stream-transport.ts";
import { WsProxyStream, type WsOpenMessage } from "./ws-proxy-stream.ts";

type StreamMessage = Extract<ServerMessage, { type: "window" | "end" | "abort" | "ws_close" }>;

export class ProxyStreams {
  readonly #runtime: Pick<ContainerRuntime, "resolvePort">;
  readonly #transport: StreamTransport;
  readonly #log: Logger;
  readonly #streams = new Map<number, HttpProxyStream | WsProxyStream>();

  constructor(runtime: Pick<ContainerRuntime, "resolvePort">, transport: StreamTransport, log: Logger) {
    this.#runtime = runtime;
    this.#transport = transport;
    this.#log = log;
  }

  get openCount(): number {
    return this.#streams.size;
  }

  open(message: HttpRequestMessage | WsOpenMessage): void {
    this.#streams.get(message.stream)?.close();
    const forget = () => {
      if (this.#streams.get(message.stream) === stream) this.#streams.delete(message.stream);
    };
    const stream = message.type === "http_request" ? new HttpProxyStream(message, this.#transport, forget) : new WsProxyStream(message, this.#transport, forget);
    // Registered before the port is resolved: body frames may arrive meanwhile.
    this.#streams.set(message.stream, stream);
    this.#runtime.resolvePort(message.instance_id, message.port).then(
      (endpoint) => stream.connect(endpoint),
      (error: unknown) => {
        this.#log.warn("container port lookup failed", { stream: message.stream, instance_id: message.instance_id, error: String(error) });
        stream.connect(null);
      },
    );
  }

  receiveData(frame: DataFrame): void {
    const stream = this.#streams.get(frame.stream);
    if (!stream) return;
    if (stream instanceof HttpProxyStream) {
      if (frame.kind === DataKind.body) stream.receiveBody(frame.payload);
      else this.#log.warn("WebSocket data on an HTTP stream ignored", { stream: frame.stream });
    } else {
      stream.receiveMessage(frame.kind, frame.payload);
    }
  }

  receive(message: StreamMessage): void {
    const stream = this.#streams.get(message.stream);
    if (!stream) return;
    switch (message.type) {
      case "window":
        return stream.grant(message.bytes);
      case "abort":
        return stream.close();
      case "end":
        if (stream instanceof HttpProxyStream) stream.endBody();
        return;
      case "ws_close":
        if (stream instanceof WsProxyStream) stream.closeUpstream(message.code, message.reason);
        return;
    }
  }

  /** The connection to the MachineDO is gone: no stream can continue. */
  closeAll(): void {
    for (const stream of [...this.#streams.values()]) stream.close();
    this.#streams.clear();
  }
}
