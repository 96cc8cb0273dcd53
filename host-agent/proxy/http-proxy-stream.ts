// One proxied HTTP request: the request body from the MachineDO goes to the container port as it
// arrives, the response comes back as data frames within the credit the MachineDO grants.
import { Agent, request, type ClientRequest, type IncomingMessage } from "node:http";
import type { ServerMessage } from "../../protocol/messages.ts";
import { ReceiveCredit, SendCredit } from "../../protocol/mux/flow-control.ts";
import { DataKind, MAX_DATA_FRAME_BYTES } from "../../protocol/mux/frames.ts";
import type { MuxStream } from "../../protocol/mux/stream-table.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import { responseHeaderPairs, upstreamRequestHeaders } from "./proxy-headers.ts";
import type { StreamTransport } from "./stream-transport.ts";

export type HttpRequestMessage = Extract<ServerMessage, { type: "http_request" }>;

const upstreamAgent = new Agent({ keepAlive: true });

export class HttpProxyStream implements MuxStream {
  readonly carries = "http";
  readonly #message: HttpRequestMessage;
  readonly #transport: StreamTransport;
  readonly #onClosed: () => void;
  readonly #sendCredit = new SendCredit();
  readonly #receiveCredit = new ReceiveCredit();
  #request: ClientRequest | null = null;
  #response: IncomingMessage | null = null;
  /** Body frames that arrived while the container port was still being resolved. */
  #earlyBody: Uint8Array[] = [];
  #bodyEnded = false;
  /** Response bytes read from upstream but not yet covered by credit (at most one read's worth). */
  #pending: Buffer[] = [];
  #responseEnded = false;
  #waitingForDrain = false;
  #pumpScheduled = false;
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
    this.#sendCredit.grant(bytes);
    this.#pump();
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
    this.#request?.destroy();
    this.#response?.destroy();
    this.#pending = [];
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
    res.on("data", (chunk: Buffer) => {
      this.#pending.push(chunk);
      this.#schedulePump();
    });
    res.on("end", () => {
      this.#responseEnded = true;
      this.#pump();
    });
    res.on("error", (error) => this.#fail(`upstream error: ${error.message}`));
    res.on("close", () => {
      if (!this.#responseEnded) this.#fail("upstream closed the response before its end");
    });
  }

  /** Reads that arrive in one turn of the event loop leave together: fewer, bigger frames. */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#closed || !this.#response) return;
    while (this.#pending.length > 0 && this.#sendCredit.available > 0 && !this.#transport.congested()) {
      // Each frame carries as many pending bytes as fit (up to MAX_DATA_FRAME_BYTES and the credit):
      // the MachineDO pays per frame, not per byte.
      const limit = Math.min(MAX_DATA_FRAME_BYTES, this.#sendCredit.available);
      const parts: Buffer[] = [];
      let size = 0;
      while (this.#pending.length > 0 && size < limit) {
        const chunk = this.#pending[0]!;
        const take = Math.min(chunk.byteLength, limit - size);
        parts.push(chunk.subarray(0, take));
        size += take;
        if (take === chunk.byteLength) this.#pending.shift();
        else this.#pending[0] = chunk.subarray(take);
      }
      this.#transport.sendData(DataKind.body, this.#message.stream, parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
      this.#sendCredit.consume(size);
    }
    if (this.#pending.length > 0) {
      this.#response.pause();
      if (this.#transport.congested() && !this.#waitingForDrain) {
        this.#waitingForDrain = true;
        this.#transport.whenUncongested(() => {
          this.#waitingForDrain = false;
          this.#pump();
        });
      }
      return;
    }
    if (!this.#responseEnded) return void this.#response.resume();
    this.#transport.send({ type: "end", stream: this.#message.stream });
    // The upstream answered without reading the whole body: the rest of it has nowhere to go.
    if (this.#message.has_body && !this.#bodyEnded) this.#request?.destroy();
    this.#closed = true;
    this.#onClosed();
  }

  #fail(reason: string): void {
    if (this.#closed) return;
    this.#transport.send({ type: "abort", stream: this.#message.stream, reason });
    this.close();
  }
}
