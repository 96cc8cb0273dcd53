// A PUT of a streamed body that reads the server's answer even when it comes before the body has all
// gone (a 413 from the edge, a refusal): fetch would then report only the broken connection
// (`read ECONNRESET`), node:http hands over the response the moment its head arrives.
// It asks before sending the body (`Expect: 100-continue`, as curl does for big bodies), so anything
// in front that refuses a body by its Content-Length answers before a byte of it goes; the body goes
// on the server's 100 (Continue), or after CONTINUE_WAIT_MS from one that sends none.
// A refusal after the body began can still be lost: a server that closes a connection it has not
// read to the end resets it, and the answer with it.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { CliError } from "../errors.ts";

export interface PutAnswer {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
}

/** How long the body waits for a 100 (Continue) before it goes anyway (curl's default). */
const CONTINUE_WAIT_MS = 1_000;

/** PUTs `body` to `url`; resolves with the answer, or fails only when none came. */
export function streamedPut(url: string, headers: Record<string, string>, body: Readable): Promise<PutAnswer> {
  const target = new URL(url);
  const request = (target.protocol === "https:" ? httpsRequest : httpRequest)(target, { method: "PUT", headers: { ...headers, expect: "100-continue" } });
  let waiting: ReturnType<typeof setTimeout> | undefined;
  let sending = false;
  // Once: a 100 that comes after the wait ran out must not send the body again.
  const send = () => {
    clearTimeout(waiting);
    if (sending || request.destroyed || body.destroyed) return;
    sending = true;
    body.pipe(request);
  };
  return new Promise<PutAnswer>((resolve, reject) => {
    request.on("response", (response) => {
      // What is still unsent is of no use once the server has answered.
      clearTimeout(waiting);
      body.unpipe(request);
      body.destroy();
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        // A request answered before its body ended cannot be used again.
        if (!request.writableFinished) request.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") });
      });
      response.on("error", (error) => reject(new CliError(`the answer broke off: ${error.message}`)));
    });
    // The socket the server closed after answering is no failure: the answer is what counts.
    request.on("error", (error) => reject(new CliError(`the upload broke off: ${error.message}`)));
    body.on("error", (error) => request.destroy(error));
    request.once("continue", send);
    waiting = setTimeout(send, CONTINUE_WAIT_MS);
    request.flushHeaders();
  });
}

/** The API's error of an answer, as the CLI says it. */
export function refusalOf(answer: Pick<PutAnswer, "status" | "text">): CliError {
  try {
    const body = JSON.parse(answer.text) as { error: string; message: string };
    return new CliError(`${body.message} (${body.error}, HTTP ${answer.status})`);
  } catch {
    return new CliError(`HTTP ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
}

/**
 * A 413 that is not the API's own error but a page of something in front of it (a proxy, or an edge
 * that caps request bodies lower than the service: Cloudflare's plans at 100 to 500 MB).
 */
export function cappedOnTheWay(answer: Pick<PutAnswer, "status" | "text">): boolean {
  if (answer.status !== 413) return false;
  try {
    return typeof (JSON.parse(answer.text) as { error?: unknown }).error !== "string";
  } catch {
    return true;
  }
}

/** A body refused as too large on its way to the service: the same bytes may pass in smaller requests. */
export class CappedBody extends CliError {}
