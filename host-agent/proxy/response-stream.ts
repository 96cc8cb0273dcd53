// An agent stream that answers the MachineDO with an HTTP response whose body is relayed from a
// source (an upstream response, a container log) within the credit the MachineDO grants.
import type { Readable } from "node:stream";
import { asciiJson } from "../../protocol/ascii-json.ts";
import type { AgentMessage, ServerMessage } from "../../protocol/messages.ts";
import { encodeResponseFrame } from "../../protocol/mux/response-frame.ts";
import { AgentStream } from "./agent-stream.ts";
import { BodyRelay, type RelayOutcome } from "./body-relay.ts";

type ResponseHead = Extract<AgentMessage, { type: "http_response" }>;

/**
 * How the MachineDO now connected takes a small response whole, as its welcome says: one binary
 * response frame, one `http_response` with the body in base64 (an older one), or not at all.
 */
export type WholeResponses = "frame" | "message" | null;

export function wholeResponsesOf(welcome: Extract<ServerMessage, { type: "welcome" }>): WholeResponses {
  if (welcome.response_frames === true) return "frame";
  return welcome.whole_responses === true ? "message" : null;
}

export abstract class ResponseStream<M extends { stream: number }> extends AgentStream<M> {
  readonly carries = "http";
  /** Made with the stream: credit granted before the response head waits in it. */
  readonly #relay = new BodyRelay(this.message.stream, this.transport);

  onWindow(bytes: number): void {
    this.#relay.grant(bytes);
  }

  /** Sends the response head, then relays `body` as its data frames (of at least `gatherBytes` but the last) and `end`. */
  protected respond(status: number, headers: ResponseHead["headers"], body: Readable, outcome: RelayOutcome, gatherBytes = 0): void {
    this.transport.send({ type: "http_response", stream: this.message.stream, status, headers });
    this.#relay.start(body, outcome, gatherBytes);
  }

  /**
   * Sends the response whole, head and body in one message, once `body` has given its `length` bytes:
   * for a MachineDO that takes it (`form`, its welcome) and a body of at most WHOLE_RESPONSE_MAX_BYTES,
   * where three messages (head, data, end) cost it three times the work.
   */
  protected respondWhole(status: number, headers: ResponseHead["headers"], body: Readable, length: number, outcome: RelayOutcome, form: "frame" | "message"): void {
    const chunks: Buffer[] = [];
    let received = 0;
    let ended = false;
    body.on("data", (chunk: Buffer) => {
      received += chunk.byteLength;
      chunks.push(chunk);
    });
    body.on("end", () => {
      ended = true;
      if (this.closed) return;
      if (received !== length) return outcome.onFailed(`body of ${received} bytes where its Content-Length said ${length}`);
      const bytes = Buffer.concat(chunks);
      if (form === "frame") this.transport.sendFrame(encodeResponseFrame(this.message.stream, status, asciiJson(headers), bytes));
      else this.transport.send({ type: "http_response", stream: this.message.stream, status, headers, body: bytes.toString("base64") });
      outcome.onFinished();
    });
    body.on("error", (error: Error) => {
      if (!this.closed) outcome.onFailed(`error: ${error.message}`);
    });
    body.on("close", () => {
      if (!ended && !this.closed) outcome.onFailed("closed before its end");
    });
  }

  /** Dropped: the relay sends nothing more, then the source is let go. */
  override close(): void {
    this.#relay.stop();
    super.close();
  }
}
