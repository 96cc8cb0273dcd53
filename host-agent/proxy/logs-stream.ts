// A container's logs as the answer to the MachineDO's `logs_open`, shaped like a proxied HTTP
// response: a head (404 when the runtime has no such container), the formatted lines as body data
// frames within the MachineDO's credit, then `end`, so the MachineDO relays it as any response.
import { Transform, type Readable, type TransformCallback } from "node:stream";
import type { ServerMessage } from "../../protocol/messages.ts";
import type { DataKind } from "../../protocol/mux/frames.ts";
import type { LogLine } from "../runtime/runtime.ts";
import { ResponseStream } from "./response-stream.ts";
import type { StreamTransport } from "./stream-transport.ts";

export type LogsOpenMessage = Extract<ServerMessage, { type: "logs_open" }>;

/** A followed log silent this long gets an SSE comment: idle connections stay open, and a gone client is noticed. */
export const KEEPALIVE_MS = 15_000;

const CONTENT_TYPES = { text: "text/plain; charset=utf-8", events: "text/event-stream" } as const;

export class LogsStream extends ResponseStream<LogsOpenMessage> {
  readonly #keepAliveMs: number;
  #source: Readable | null = null;
  #body: Transform | null = null;

  constructor(message: LogsOpenMessage, transport: StreamTransport, onClosed: () => void, keepAliveMs = KEEPALIVE_MS) {
    super(message, transport, onClosed);
    this.#keepAliveMs = keepAliveMs;
  }

  /** Answers with the runtime's log of the container, or 404 when it has none (null). */
  connect(source: Readable | null): void {
    if (this.closed) return void source?.destroy();
    const { stream, format, follow } = this.message;
    if (!source) {
      this.transport.send({ type: "http_response", stream, status: 404, headers: [] });
      this.transport.send({ type: "end", stream });
      return this.finish();
    }
    this.#source = source;
    const body = formatLines(format, format === "events" && follow ? this.#keepAliveMs : null);
    this.#body = body;
    source.on("error", (error) => body.destroy(error));
    this.respond(200, [["content-type", CONTENT_TYPES[format]], ["cache-control", "no-store"]], source.pipe(body), {
      onFinished: () => this.finish(),
      onFailed: (reason) => this.fail(`log ${reason}`),
    });
  }

  /** Fails the stream when the runtime could not read the log. */
  refuse(reason: string): void {
    this.fail(reason);
  }

  onData(_kind: DataKind, _payload: Uint8Array): void {
    this.fail("a logs request takes no body");
  }

  /** Stops reading the log (a follow ends). */
  protected release(): void {
    this.#source?.destroy();
    this.#body?.destroy();
  }
}

/**
 * LogLine objects in, the response body out: bare lines (`text`), or one server-sent event per line
 * (`events`), with a keep-alive comment after `keepAliveMs` of silence when given.
 */
function formatLines(format: LogsOpenMessage["format"], keepAliveMs: number | null): Transform {
  let timer: NodeJS.Timeout | null = null;
  const transform = new Transform({
    writableObjectMode: true,
    transform(entry: LogLine, _encoding, done: TransformCallback) {
      timer?.refresh();
      done(null, format === "text" ? `${entry.line}\n` : `data: ${JSON.stringify({ t: entry.t, stream: entry.stream, line: entry.line })}\n\n`);
    },
    flush(done: TransformCallback) {
      if (timer) clearInterval(timer);
      done();
    },
    destroy(error, done) {
      if (timer) clearInterval(timer);
      done(error);
    },
  });
  if (keepAliveMs !== null) timer = setInterval(() => transform.push(": keep-alive\n\n"), keepAliveMs);
  return transform;
}
