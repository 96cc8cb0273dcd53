// A PUT of a streamed body that reads the server's answer even when it comes before the body has all
// gone (a 413 from the edge, a refusal): fetch would then report only the broken connection
// (`read ECONNRESET`), node:http hands over the response the moment its head arrives.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { CliError } from "../errors.ts";

export interface PutAnswer {
  status: number;
  headers: IncomingMessage["headers"];
  text: string;
}

/** PUTs `body` to `url`; resolves with the answer, or fails only when none came. */
export function streamedPut(url: string, headers: Record<string, string>, body: Readable): Promise<PutAnswer> {
  const target = new URL(url);
  const request = (target.protocol === "https:" ? httpsRequest : httpRequest)(target, { method: "PUT", headers });
  return new Promise<PutAnswer>((resolve, reject) => {
    request.on("response", (response) => {
      // What is still unsent is of no use once the server has answered.
      body.unpipe(request);
      body.destroy();
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", (error) => reject(new CliError(`the answer broke off: ${error.message}`)));
    });
    // The socket the server closed after answering is no failure: the answer is what counts.
    request.on("error", (error) => reject(new CliError(`the upload broke off: ${error.message}`)));
    body.on("error", (error) => request.destroy(error));
    body.pipe(request);
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
