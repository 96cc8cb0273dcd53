// Requests to instance web apps' origins (`{id}-{port}.localhost:PORT`) from Node, as a browser
// sends them: Chromium resolves every `*.localhost` name to loopback, Node's resolver does not, so
// these requests resolve every name to 127.0.0.1 themselves. node:http, so a body can stream both
// ways and a redirect is not followed.
import { request, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import WebSocket from "ws";

/** Every name is this machine (what Chromium does for *.localhost). */
export const loopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

export interface AppRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

/** The response as it starts: status, headers, and the body still streaming. */
export function openAppRequest(url: string, init: AppRequestInit = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(url), { method: init.method ?? "GET", headers: init.headers, lookup: loopback }, resolve);
    req.on("error", reject);
    if (init.body === undefined || typeof init.body === "string" || Buffer.isBuffer(init.body)) req.end(init.body);
    else init.body.pipe(req);
  });
}

export interface AppResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The whole response, its body as text. */
export async function appRequest(url: string, init: AppRequestInit = {}): Promise<AppResponse> {
  const response = await openAppRequest(url, init);
  let body = "";
  for await (const chunk of response) body += (chunk as Buffer).toString();
  return { status: response.statusCode!, headers: response.headers, body };
}

/** The `gpr_app` cookie a response sets, as `gpr_app=...` for a Cookie header; null when none. */
export function appCookieOf(response: { headers: IncomingHttpHeaders }): string | null {
  return (response.headers["set-cookie"] ?? []).find((line) => line.startsWith("gpr_app="))?.split(";")[0] ?? null;
}

/** A WebSocket to an app origin's `ws://` URL with `headers` (its cookie). */
export function appWebSocket(url: string, headers: Record<string, string>): WebSocket {
  return new WebSocket(url, { headers, lookup: loopback });
}
