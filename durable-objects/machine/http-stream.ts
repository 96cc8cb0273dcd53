// One proxied HTTP exchange over the agent socket: the request body is pumped to the agent within
// the credit the agent returns, and the response body is handed to the client only as fast as it
// reads, returning credit as it goes. Neither side ever holds more than one window.
import { DataKind, encodeDataFrame, INITIAL_WINDOW_BYTES, MAX_DATA_FRAME_BYTES, WINDOW_UPDATE_THRESHOLD } from "../../protocol/index.ts";
import type { ServerMessage } from "../../protocol/messages.ts";
import { SendCredit } from "./credit.ts";
import { responseHeaders } from "./headers.ts";

export interface StreamLink {
  sendControl(message: ServerMessage): void;
  sendData(frame: Uint8Array): void;
  /** The stream is finished on this side; forget it. */
  close(stream: number): void;
}

export const MAX_REQUEST_BODY_BYTES = 512 * 1024 * 1024;

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export class HttpStream {
  private readonly credit = new SendCredit(INITIAL_WINDOW_BYTES);
  private readonly chunks: Uint8Array[] = [];
  private wakeReader: (() => void) | null = null;
  private consumedSinceWindow = 0;
  private ended = false;
  private failure: Error | null = null;
  private finished = false;
  private resolveHead!: (response: Response) => void;
  readonly head = new Promise<Response>((resolve) => (this.resolveHead = resolve));

  private readonly id: number;
  private readonly link: StreamLink;
  private readonly method: string;

  constructor(id: number, link: StreamLink, method: string) {
    this.id = id;
    this.link = link;
    this.method = method;
  }

  /** Pumps the client's request body to the agent; stops early if the stream ends. */
  async pumpBody(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.finished) return void reader.cancel().catch(() => undefined);
        if (done) return this.link.sendControl({ type: "end", stream: this.id });
        total += value.byteLength;
        if (total > MAX_REQUEST_BODY_BYTES) {
          this.fail(new Error("request body too large"), payloadTooLarge());
          return void reader.cancel().catch(() => undefined);
        }
        for (let offset = 0; offset < value.byteLength && !this.finished; ) {
          const size = await this.credit.take(Math.min(MAX_DATA_FRAME_BYTES, value.byteLength - offset));
          if (this.finished) break;
          this.link.sendData(encodeDataFrame(DataKind.body, this.id, value.subarray(offset, offset + size)));
          offset += size;
        }
      }
    } catch {
      this.fail(new Error("the client's request body failed"), null);
    }
  }

  onResponseHead(status: number, headers: [string, string][]): void {
    const body = NULL_BODY_STATUSES.has(status) || this.method === "HEAD" ? null : this.responseBody();
    if (body === null) this.ended = true;
    this.resolveHead(new Response(body, { status, headers: responseHeaders(headers) }));
  }

  onData(payload: Uint8Array): void {
    // Copy: the payload views a WebSocket message buffer we must not keep alive or share.
    this.chunks.push(payload.slice());
    this.wake();
  }

  onWindow(bytes: number): void {
    this.credit.grant(bytes);
  }

  onEnd(): void {
    this.ended = true;
    this.wake();
  }

  /** The agent gave up: before the head the client gets `beforeHead`, after it a broken body. */
  onAbort(reason: string): void {
    const beforeHead = reason === "upstream_unavailable" ? upstreamUnavailable() : upstreamUnavailable(reason);
    this.finish(new Error(`upstream aborted: ${reason}`), beforeHead);
  }

  /** The proxy side gave up (agent gone, body too large, client gone): tell the agent too. */
  fail(error: Error, beforeHead: Response | null): void {
    if (this.finished) return;
    this.link.sendControl({ type: "abort", stream: this.id, reason: error.message });
    this.finish(error, beforeHead ?? upstreamUnavailable());
  }

  private finish(error: Error, beforeHead: Response): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = error;
    this.resolveHead(beforeHead);
    this.credit.release();
    this.wake();
    this.link.close(this.id);
  }

  private responseBody(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (this.chunks.length === 0 && !this.ended && !this.failure) {
            await new Promise<void>((resolve) => (this.wakeReader = resolve));
          }
          const chunk = this.chunks.shift();
          if (chunk) {
            controller.enqueue(chunk);
            this.returnCredit(chunk.byteLength);
          } else if (this.failure) {
            controller.error(this.failure);
          } else {
            controller.close();
            this.finished = true;
            this.credit.release();
            this.link.close(this.id);
          }
        },
        cancel: () => this.fail(new Error("client went away"), null),
      },
      { highWaterMark: 0 },
    );
  }

  private returnCredit(bytes: number): void {
    this.consumedSinceWindow += bytes;
    if (this.consumedSinceWindow >= WINDOW_UPDATE_THRESHOLD && !this.finished) {
      this.link.sendControl({ type: "window", stream: this.id, bytes: this.consumedSinceWindow });
      this.consumedSinceWindow = 0;
    }
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = null;
    wake?.();
  }
}

export function upstreamUnavailable(detail?: string): Response {
  const message = detail ? `the upstream failed: ${detail}` : "nothing answers on that port yet, or the host is offline";
  return Response.json({ error: "upstream_unavailable", message }, { status: 502 });
}

function payloadTooLarge(): Response {
  return Response.json(
    { error: "payload_too_large", message: `request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes (512 MB)` },
    { status: 413 },
  );
}
