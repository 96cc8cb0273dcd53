// Baseline (f): the least a host's object does for one small proxied request. It sends the request's
// target and headers to its one WebSocket peer as one JSON message, as the MachineDO sends its agent
// `http_request`, and answers with the peer's one binary frame, as the MachineDO answers with a response
// frame. No admission, no stream table, no body: what is left is the runtime's work for one invocation
// in, one message each way and one Response out. Its CPU per request, split by the ceiling's arithmetic
// (bench/profile/ceiling.ts), is the floor under the MachineDO's.
import { DurableObject } from "cloudflare:workers";

/** The request's target, as the Worker hands it over (relay-worker.ts). */
export const TARGET_HEADER = "x-relay-target";

export class BareRelay extends DurableObject {
  private readonly waiting = new Map<number, (response: Response) => void>();
  private nextId = 1;
  private peer: WebSocket | null = null;

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade") === "websocket") return this.acceptPeer();
    // An object woken from hibernation has its peer's socket from the runtime, not in memory.
    const peer = (this.peer ??= this.ctx.getWebSockets()[0] ?? null);
    if (peer === null) return new Response("no peer", { status: 502 });
    const id = this.nextId++;
    peer.send(JSON.stringify({ stream: id, target: JSON.parse(request.headers.get(TARGET_HEADER) ?? "null") }));
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** The peer's answer: the stream id (4 bytes, big-endian), then the response body. */
  override webSocketMessage(_ws: WebSocket, message: string | ArrayBuffer): void {
    if (typeof message === "string") return;
    const id = new DataView(message).getUint32(0);
    const answer = this.waiting.get(id);
    this.waiting.delete(id);
    answer?.(new Response(new Uint8Array(message, 4), { headers: { "content-type": "application/json" } }));
  }

  override webSocketClose(): void {
    this.peer = null;
    for (const answer of this.waiting.values()) answer(new Response("the peer left", { status: 502 }));
    this.waiting.clear();
  }

  private acceptPeer(): Response {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    this.peer = pair[1];
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
}
