// One proxied HTTP request: the request body from the MachineDO goes to the container port as it
// arrives, the response comes back as data frames within the credit the MachineDO grants.
import { Agent, request, type ClientRequest, type IncomingMessage } from "node:http";
import type { ServerMessage } from "../../protocol/messages.ts";
import { ReceiveCredit } from "../../protocol/mux/flow-control.ts";
import type { DataKind } from "../../protocol/mux/frames.ts";
import type { MuxStream } from "../../protocol/mux/stream-table.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import { BodyRelay } from "./body-relay.ts";
import { responseHeaderPairs, upstreamRequestHeaders } from "./proxy-headers.ts";
import type { StreamTransport } from "./stream-transport.ts";

export type HttpRequestMessage = Extract<ServerMessage, { type: "http_request" }>;

const upstreamAgent = new Agent({ keepAlive: true });

export class HttpProxyStream implements MuxStream {
  readonly carries = "http";
  readonly #message: HttpRequestMessage;
  readonly #transport: StreamTransport;
  readonly #onClosed: () => void;
  readonly #receiveCredit = new ReceiveCredit();
  #request: ClientRequest | null = null;
  #response: IncomingMessage | null = null;
  #relay: BodyRelay | null = null;
  /** Credit granted before the response head, handed to the relay once it exists. */
  #earlyCredit = 0;
  /** Body frames that arrived while the container port was still being resolved. */
  #earlyBody: Uint8Array[] = [];
  #bodyEnded = false;
  #closed = false;

  constructor(message: HttpRequestMessage, transport: StreamTransport, onClosed: () => void) {
    this.#message = message;
    this.#transport = transport;
    this.#onClosed = onClosed;
  }

  connect(endpoint: Endpoint | null): void {
    if (this.#closed) return;
    if (!endpoint) return this.#fail("upstream_unavailable");
    const { method, path, headers, port, has_body: hasBody } = this.#message;
    const req = request({ host: endpoint.host, port: endpoint.port, method, path, headers: upstreamRequestHeaders(headers, port), agent: upstreamAgent });
    this.#request = req;
    req.on("response", (res) => this.#relayResponse(res));
    req.on("error", (error) => this.#fail(this.#response ? `upstream error: ${error.message}` : "upstream_unavailable"));
    if (!hasBody) return void req.end();
    for (const payload of this.#earlyBody.splice(0)) this.#writeBody(payload);
    if (this.#bodyEnded) req.end();
  }

  onData(_kind: DataKind, payload: Uint8Array): void {
    if (this.#closed) return;
    if (!this.#message.has_body || this.#bodyEnded) return this.#fail("request body data after its end");
    if (!this.#receiveCredit.receive(payload.byteLength)) return this.#fail("request body exceeded the flow-control window");
    if (this.#request) this.#writeBody(payload);
    else this.#earlyBody.push(payload);
  }

  onEnd(): void {
    if (this.#closed || this.#bodyEnded) return;
    this.#bodyEnded = true;
    this.#request?.end();
  }

  onWindow(bytes: number): void {
    if (this.#relay) this.#relay.grant(bytes);
    else this.#earlyCredit += bytes;
  }

  /** The MachineDO gave up on the stream (its client went away). */
  onAbort(): void {
    this.close();
  }

  onWsClose(): void {
    // Not a WebSocket: nothing to close.
  }

  onDisconnect(): void {
    this.close();
  }

  /** Drops everything and says nothing to the MachineDO. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#relay?.stop();
    this.#request?.destroy();
    this.#response?.destroy();
    this.#earlyBody = [];
    this.#onClosed();
  }

  #writeBody(payload: Uint8Array): void {
    this.#request?.write(payload, () => {
      const credit = this.#receiveCredit.consume(payload.byteLength);
      if (credit > 0 && !this.#closed) this.#transport.send({ type: "window", stream: this.#message.stream, bytes: credit });
    });
  }

  #relayResponse(res: IncomingMessage): void {
    if (this.#closed) return void res.destroy();
    this.#response = res;
    this.#transport.send({ type: "http_response", stream: this.#message.stream, status: res.statusCode ?? 502, headers: responseHeaderPairs(res.rawHeaders) });
    this.#relay = new BodyRelay(this.#message.stream, res, this.#transport, {
      onFinished: () => {
        // The upstream answered without reading the whole body: the rest of it has nowhere to go.
        if (this.#message.has_body && !this.#bodyEnded) this.#request?.destroy();
        this.#closed = true;
        this.#onClosed();
      },
      onFailed: (reason) => this.#fail(`upstream ${reason}`),
    });
    if (this.#earlyCredit > 0) this.#relay.grant(this.#earlyCredit);
  }

  #fail(reason: string): void {
    if (this.#closed) return;
    this.#transport.send({ type: "abort", stream: this.#message.stream, reason });
    this.close();
  }
}
