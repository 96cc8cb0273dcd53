// One proxied HTTP exchange over the agent socket: the request body is pumped to the agent within
// the credit the agent returns, and the response body is written to the client through a native
// identity stream whose writes complete only as the client reads, returning credit as they do.
// Neither side ever holds more than one window. A declared Content-Length is kept (FixedLengthStream).
//
// A body the host's disconnection or the upstream cuts short is errored, so the client's read fails as
// it would on a dropped connection and a cut download is never taken for a whole one. A server-sent
// event stream is the exception: its events are whole by themselves, so it simply ends. A client that
// leaves ends its body quietly (nobody reads it). Each is an expected event, logged here once as what
// it is; workerd still prints its own "Uncaught" line for an errored body, which no JavaScript can
// silence, and an honest cut is worth that line.
import { errorResponse } from "../../core/errors.ts";
import { asciiJson, clientResponseHeaders, DataKind, release, type ResponseFrame } from "../../protocol/index.ts";
import { upstreamAnswer } from "../contracts/upstream-answer.ts";
import type { ReadRoom } from "./body-reads.ts";
import { BridgeStream, upstreamUnavailable, type StreamLink } from "./bridge-stream.ts";

export const MAX_REQUEST_BODY_BYTES = 512 * 1024 * 1024;

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const encoder = new TextEncoder();

export class HttpStream extends BridgeStream {
  readonly carries = "http";
  private writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  private answered = false;
  /** A text/event-stream response: cut short, it ends rather than breaks (see the file's head). */
  private eventStream = false;
  private resolveHead!: (response: Response) => void;
  readonly head = new Promise<Response>((resolve) => (this.resolveHead = resolve));

  private readonly method: string;
  /** For the buffers the request body is read into: its account's on this host. */
  private readonly readRoom: ReadRoom;
  /**
   * A proxied exchange: the Worker builds the client's headers from the upstream's, handed on as they
   * came (contracts/upstream-answer.ts). Else (files, logs) this object builds them.
   */
  private readonly proxied: boolean;

  constructor(id: number, link: StreamLink, method: string, readRoom: ReadRoom, proxied = false) {
    super(id, link);
    this.method = method;
    this.readRoom = readRoom;
    this.proxied = proxied;
  }

  /** Pumps the client's request body to the agent; stops early if the stream ends. */
  async pumpBody(body: ReadableStream<Uint8Array>): Promise<void> {
    try {
      await this.sendBody(DataKind.body, body, this.readRoom, (total) => {
        if (total <= MAX_REQUEST_BODY_BYTES) return true;
        this.log("info", "request body over 512 MB: refused");
        this.fail("request body too large", payloadTooLarge());
        return false;
      });
    } catch {
      if (this.finished) return;
      this.log("info", "the client's request body broke off");
      this.fail("the client's request body failed", null);
    }
  }

  /** `body`: the whole body, base64, from an agent this object's welcome told it may send one (protocol's `whole_responses`): the stream ends here. */
  onResponseHead(status: number, headers: [string, string][], body?: string): void {
    this.answered = true;
    if (NULL_BODY_STATUSES.has(status) || this.method === "HEAD") {
      this.resolveHead(this.answer(status, null, headers));
      return this.finish();
    }
    if (body !== undefined) return this.respondWhole(status, headers, body);
    this.eventStream = headers.some(([name, value]) => name.toLowerCase() === "content-type" && /^\s*text\/event-stream\b/i.test(value));
    const length = declaredLength(headers);
    const pipe = length === null ? new IdentityTransformStream() : new FixedLengthStream(length);
    this.writer = pipe.writable.getWriter() as WritableStreamDefaultWriter<Uint8Array>;
    this.resolveHead(this.answer(status, pipe.readable, headers));
  }

  /**
   * A small response whole in one binary frame (protocol's `response_frames`, mux/response-frame.ts):
   * only a proxied exchange's, whose head is handed on unread. The stream ends here.
   */
  onResponseFrame(frame: ResponseFrame): void {
    if (!this.proxied || this.answered) return this.failMalformed("a response frame on a stream that is not proxied or already answered");
    this.answered = true;
    const body = NULL_BODY_STATUSES.has(frame.status) || this.method === "HEAD" ? null : frame.body;
    try {
      this.resolveHead(upstreamAnswer(frame.status, body, frame.head));
    } catch {
      // A status no Response may have (1xx): the agent broke the protocol, and the client gets a 502.
      return this.failMalformed("the response frame's status cannot be answered");
    }
    this.finish();
  }

  /** The client's response (or, proxied, the Worker's answer to build it from) with the upstream's `headers`. */
  private answer(status: number, body: BodyInit | null, headers: [string, string][]): Response {
    return this.proxied ? upstreamAnswer(status, body, asciiJson(headers)) : new Response(body, { status, headers: clientResponseHeaders(headers) });
  }

  private respondWhole(status: number, headers: [string, string][], body: string): void {
    let bytes: Uint8Array;
    try {
      bytes = base64Bytes(body);
    } catch {
      return this.failMalformed("the response body was not base64");
    }
    this.resolveHead(this.answer(status, bytes, headers));
    this.finish();
  }

  onData(_kind: DataKind, payload: Uint8Array): void {
    if (!this.writer || this.finished) return;
    if (!this.received(payload.byteLength)) {
      // The agent broke the protocol: not an expected event, so the body is errored, not ended.
      this.sendAbort("response body exceeded the flow-control window");
      this.writer.abort(new Error("response body exceeded the flow-control window")).catch(() => undefined);
      return this.finish();
    }
    // No copy: the payload views this message's own buffer, which nothing else holds, and which is
    // released as soon as the client's stream has taken it (protocol/mux/buffer-release.ts).
    const bytes = payload.byteLength;
    this.writer.write(payload).then(
      () => {
        release(payload);
        this.handedOn(bytes);
      },
      () => {
        if (this.finished) return;
        this.log("info", "client left before the response ended");
        this.fail("client went away", null);
      },
    );
  }

  override onEnd(): void {
    // Queued behind every pending write; a FixedLengthStream refuses to close short of its length.
    this.writer?.close().then(
      () => this.finish(),
      () => {
        if (this.finished) return;
        this.log("warn", "the upstream body ended short of its Content-Length");
        this.fail("the upstream body ended early", null);
      },
    );
  }

  /** The agent gave up: before the head the client gets a 502, after it the body ends where it is. */
  onAbort(reason: string): void {
    if (this.finished) return;
    // Before the head, the agent's refusal (nothing listens on the port) is the client's 502 and its access line.
    if (this.answered) this.log("warn", "proxied response cut short: the upstream failed", { reason });
    this.endResponse(upstreamUnavailable(reason === "upstream_unavailable" ? undefined : reason), "the upstream failed");
  }

  onDisconnect(): void {
    if (this.finished) return;
    this.log("warn", this.answered ? "proxied response cut short: the host disconnected" : "proxied request failed: the host disconnected");
    this.endResponse(upstreamUnavailable("the host disconnected"), "the host disconnected");
  }

  /**
   * Before the head the client gets a 401 saying `reason`; after it an event stream (a followed log)
   * is told in a comment, which its readers skip, and ends; any other body breaks off.
   */
  revoke(reason: string): void {
    if (this.finished) return;
    this.log("info", "stream ended: the credential that opened it ended", { reason });
    this.sendAbort(reason);
    if (this.eventStream) this.writer?.write(encoder.encode(`: ${reason}\n\n`)).catch(() => undefined);
    this.endResponse(errorResponse("unauthorized", reason), reason);
  }

  /** The agent broke the protocol answering (`reason`, for the agent): the client gets the 502 of a failed upstream. */
  failMalformed(reason: string): void {
    this.fail(reason, upstreamUnavailable("the host sent a malformed response"));
  }

  /** The proxy side gave up (body too large, client gone, no answer in time): tell the agent too. */
  fail(reason: string, beforeHead: Response | null): void {
    if (this.finished) return;
    this.sendAbort(reason);
    this.endResponse(beforeHead ?? upstreamUnavailable());
  }

  /**
   * Before the head the client gets `beforeHead`; after it the body ends where it is, broken off when
   * `cutBy` names an upstream-side cause and the body is not an event stream (see the file's head).
   */
  private endResponse(beforeHead: Response, cutBy: string | null = null): void {
    if (this.finished) return;
    this.resolveHead(beforeHead);
    if (cutBy !== null && !this.eventStream) this.writer?.abort(new Error(`response cut short: ${cutBy}`)).catch(() => undefined);
    else this.writer?.close().catch(() => undefined);
    this.finish();
  }
}

/** The upstream's Content-Length, when it declared one and the body is not chunked. */
function declaredLength(headers: [string, string][]): number | null {
  if (headers.some(([name, value]) => name.toLowerCase() === "transfer-encoding" && value.toLowerCase() !== "identity")) return null;
  const value = headers.find(([name]) => name.toLowerCase() === "content-length")?.[1];
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
}

function payloadTooLarge(): Response {
  return errorResponse("payload_too_large", `request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes (512 MB)`);
}

/**
 * `Uint8Array.fromBase64` (ES2026), which workerd has and TypeScript's ES2024 lib does not declare:
 * a 16 KiB body took 0.031 ms as a JavaScript loop over `atob`'s string, 0.004 so.
 */
function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  return (Uint8Array as unknown as { fromBase64(text: string): Uint8Array<ArrayBuffer> }).fromBase64(text);
}
