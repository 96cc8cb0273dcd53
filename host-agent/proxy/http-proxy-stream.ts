// One proxied HTTP request: the request body from the MachineDO goes to the container port as it
// arrives, the response comes back as data frames within the credit the MachineDO grants.
import { Agent, request, type ClientRequest, type IncomingMessage } from "node:http";
import { WHOLE_RESPONSE_MAX_BYTES, type ServerMessage } from "../../protocol/messages.ts";
import { releaseWhole } from "../../protocol/mux/buffer-release.ts";
import { DATA_HEADER_BYTES, type DataKind } from "../../protocol/mux/frames.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import { responseHeaderPairs, upstreamRequestHeaders } from "./proxy-headers.ts";
import { ResponseStream, type WholeResponses } from "./response-stream.ts";
import type { StreamTransport } from "./stream-transport.ts";

export type HttpRequestMessage = Extract<ServerMessage, { type: "http_request" }>;

const upstreamAgent = new Agent({ keepAlive: true });

/**
 * Methods a request may be sent twice with (RFC 9110, 9.2.2). A kept-alive connection the server
 * closes just as a request goes out on it (its idle timeout, 5 s in Node's http and in uvicorn,
 * racing the request) fails that request unread; one of these, with no body, is sent again on a
 * connection of its own, as browsers and Go's client do. Anything else could have been acted on,
 * or its body has gone, so it fails as before.
 */
const REPEATABLE = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

export class HttpProxyStream extends ResponseStream<HttpRequestMessage> {
  #request: ClientRequest | null = null;
  #response: IncomingMessage | null = null;
  /** Body frames that arrived while the container port was still being resolved. */
  #earlyBody: Uint8Array[] = [];
  #bodyEnded = false;
  /** How the MachineDO takes a small response whole (its welcome). */
  readonly #wholeResponses: WholeResponses;

  constructor(message: HttpRequestMessage, transport: StreamTransport, onClosed: () => void, wholeResponses: WholeResponses = null) {
    super(message, transport, onClosed);
    this.#wholeResponses = wholeResponses;
  }

  connect(endpoint: Endpoint | null): void {
    // A stream closed meanwhile: `fail` and `#send` each do nothing.
    if (!endpoint) return this.fail("upstream_unavailable");
    this.#send(endpoint, upstreamAgent);
  }

  /** `agent`: the kept-alive connections, or false for a connection of its own (the one repeat, REPEATABLE). */
  #send(endpoint: Endpoint, agent: Agent | false): void {
    if (this.closed) return;
    const { method, path, headers, port, has_body: hasBody } = this.message;
    let req: ClientRequest;
    try {
      req = request({ host: endpoint.host, port: endpoint.port, method, path, headers: upstreamRequestHeaders(headers, port), agent });
    } catch {
      // Node refuses a method or path it cannot write (not a token, unescaped characters): no request to make.
      return this.fail("upstream_unavailable");
    }
    this.#request = req;
    req.on("response", (res) => this.#relayResponse(res));
    req.on("error", (error) => {
      if (!this.#response && req.reusedSocket && agent !== false && !hasBody && REPEATABLE.has(method)) return this.#send(endpoint, false);
      this.fail(this.#response ? `upstream error: ${error.message}` : "upstream_unavailable");
    });
    if (!hasBody) return void req.end();
    for (const payload of this.#earlyBody.splice(0)) this.#writeBody(payload);
    if (this.#bodyEnded) req.end();
  }

  onData(_kind: DataKind, payload: Uint8Array): void {
    if (this.closed) return;
    if (!this.message.has_body || this.#bodyEnded) return this.fail("request body data after its end");
    if (!this.receive(payload.byteLength)) return this.fail("request body exceeded the flow-control window");
    if (this.#request) this.#writeBody(payload);
    else this.#earlyBody.push(payload);
  }

  override onEnd(): void {
    if (this.closed || this.#bodyEnded) return;
    this.#bodyEnded = true;
    this.#request?.end();
  }

  protected release(): void {
    this.#request?.destroy();
    this.#response?.destroy();
    this.#earlyBody = [];
  }

  #writeBody(payload: Uint8Array): void {
    const bytes = payload.byteLength;
    // The upstream took it: the message it came in is done with (buffer-release.ts).
    this.#request?.write(payload, () => {
      releaseWhole(payload, DATA_HEADER_BYTES);
      this.consumed(bytes);
    });
  }

  #relayResponse(res: IncomingMessage): void {
    if (this.closed) return void res.destroy();
    this.#response = res;
    const outcome = {
      onFinished: () => {
        // The upstream answered without reading the whole body: the rest of it has nowhere to go.
        if (this.message.has_body && !this.#bodyEnded) this.#request?.destroy();
        this.finish();
      },
      onFailed: (reason: string) => this.fail(`upstream ${reason}`),
    };
    const status = res.statusCode ?? 502;
    const headers = responseHeaderPairs(res.rawHeaders);
    // A HEAD's or a 204's and 304's Content-Length describes a body that is not sent: whole, it is empty.
    const noBody = this.message.method === "HEAD" || status === 204 || status === 304;
    const form = this.#wholeResponses;
    const whole = form === null ? null : noBody ? 0 : smallDeclaredLength(res);
    if (form === null || whole === null) this.respond(status, headers, res, outcome);
    else this.respondWhole(status, headers, res, whole, outcome, form);
  }
}

/** The response's Content-Length when it declares one of at most WHOLE_RESPONSE_MAX_BYTES and is not chunked; else null. */
function smallDeclaredLength(res: IncomingMessage): number | null {
  const declared = res.headers["content-length"];
  if (res.headers["transfer-encoding"] !== undefined || declared === undefined || !/^\d{1,6}$/.test(declared)) return null;
  const length = Number(declared);
  return length <= WHOLE_RESPONSE_MAX_BYTES ? length : null;
}
