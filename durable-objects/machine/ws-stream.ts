// One proxied WebSocket: the client's socket (a WebSocketPair end accepted here) bridged to the
// upstream socket the agent opens. Messages keep their type; close codes and reasons cross both ways.
// Credit as for HTTP bodies (bridge-stream.ts), counted in message bytes: the client's messages are
// queued for the agent's credit; messages handed to the client return credit to the agent only as
// they leave the client's socket (what its bufferedAmount no longer counts), so a client that stops
// reading holds at most one window here, socket included, as a slow reader of an HTTP body does,
// all of it counted in the agent's budget of what this object holds (host-agent/proxy/send-budget.ts).
// The other way, nothing can make workerd stop reading a client's socket: a client whose messages
// wait for an upstream that does not read them, past its own bound, its account's or the host's
// (queue-budget.ts), is closed with 1008, and so is one whose credential ended (revoke). A socket the
// host's disconnection or an upstream failure ends is closed with 1011 and logged once, as the
// expected event it is.
import { errorResponse } from "../../core/errors.ts";
import {
  closeQuietly, DataKind, INTERNAL_ERROR, MAX_WS_MESSAGE_BYTES, MESSAGE_TOO_BIG, POLICY_VIOLATION, release,
} from "../../protocol/index.ts";
import { BridgeStream, upstreamUnavailable, type StreamLink } from "./bridge-stream.ts";
import type { QueueBudget } from "./queue-budget.ts";

/** The code a socket reports when its peer went away without a close frame (RFC 6455 §7.1.5). */
const ABNORMAL_CLOSURE = 1006;
/**
 * How soon a socket still holding messages is looked at again (the runtime tells nobody as it
 * drains): at first soon, then, while nothing leaves it, twice as late each time up to a second, so
 * a client that stopped reading long ago costs the object one wake a second, not a hundred.
 */
const DRAIN_POLL_FIRST_MS = 10;
const DRAIN_POLL_MAX_MS = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class WsStream extends BridgeStream {
  readonly carries = "websocket";
  private client: WebSocket | null = null;
  /** Bytes handed to the client's socket whose credit waits for them to leave it. */
  private owed = 0;
  private drainPoll: ReturnType<typeof setTimeout> | null = null;
  private drainPollMs = DRAIN_POLL_FIRST_MS;
  private resolveAccept!: (response: Response) => void;
  readonly accepted = new Promise<Response>((resolve) => (this.resolveAccept = resolve));
  /** The client's messages waiting here for the agent's credit, counted in `queues` under `accountId`. */
  private waiting = 0;
  private readonly queues: QueueBudget;
  private readonly accountId: string;

  /** `queues`: the MachineDO's bounds on what clients' messages may wait for, shared by its WebSockets. */
  constructor(id: number, link: StreamLink, queues: QueueBudget, accountId: string) {
    super(id, link);
    this.queues = queues;
    this.accountId = accountId;
  }

  protected override queueChanged(bytes: number): void {
    this.waiting += bytes;
    this.queues.change(this.accountId, bytes);
  }

  onAccepted(protocol: string): void {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    // At this compatibility date binary messages would arrive as Blobs; the bridge forwards bytes.
    server.binaryType = "arraybuffer";
    server.accept();
    this.client = server;
    server.addEventListener("message", (event) => {
      // Messages the client sent before its socket was closed here still arrive: nobody takes them.
      if (this.finished) return;
      const kind = typeof event.data === "string" ? DataKind.wsText : DataKind.wsBinary;
      const payload = typeof event.data === "string" ? encoder.encode(event.data) : new Uint8Array(event.data as ArrayBuffer);
      if (payload.byteLength > MAX_WS_MESSAGE_BYTES) {
        this.log("info", "client WebSocket message over the proxy's limit: closed with 1009", { bytes: payload.byteLength });
        return this.closeBothWays(MESSAGE_TOO_BIG, "message too big for the proxy");
      }
      const refusal = this.wouldWait(payload.byteLength) ? this.queues.refusal(this.accountId, this.waiting, payload.byteLength) : null;
      if (refusal) {
        this.log("info", "client WebSocket sent faster than its upstream reads: closed with 1008", {
          queued_bytes: this.waiting, account_queued_bytes: this.queues.queued(this.accountId), host_queued_bytes: this.queues.queued(),
        });
        return this.closeBothWays(POLICY_VIOLATION, refusal);
      }
      this.queue(kind, payload);
      release(payload);
    });
    server.addEventListener("close", (event) => {
      if (this.finished) return;
      if (event.code === ABNORMAL_CLOSURE) this.log("info", "client left: its WebSocket dropped without a close");
      this.link.sendControl({ type: "ws_close", stream: this.id, code: event.code, reason: event.reason });
      this.finish();
    });
    server.addEventListener("error", () => {
      if (this.finished) return;
      this.log("info", "the client's WebSocket failed");
      this.abort("client socket error");
    });
    const headers = protocol ? { "sec-websocket-protocol": protocol } : undefined;
    this.resolveAccept(new Response(null, { status: 101, webSocket: client, headers }));
  }

  onData(kind: DataKind, payload: Uint8Array): void {
    if (!this.client || this.finished) return;
    if (!this.received(payload.byteLength)) return this.abort("WebSocket data exceeded the flow-control window");
    this.client.send(kind === DataKind.wsText ? decoder.decode(payload) : payload);
    this.owed += payload.byteLength;
    release(payload);
    this.repay();
  }

  /**
   * Returns to the agent what has left the client's socket, as each message comes and, while some
   * has not left, as a poll finds (`polled`: the poll's own turn, which backs off when nothing left).
   */
  private repay(polled = false): void {
    if (this.finished || !this.client) return;
    // The socket holds only messages handed to it here, some of them already repaid: what it holds
    // beyond `owed` cannot be. A runtime without bufferedAmount (workerd before November 2026) is
    // taken at its word.
    const left = this.owed - Math.min(this.client.bufferedAmount ?? 0, this.owed);
    if (left > 0) {
      this.owed -= left;
      this.drainPollMs = DRAIN_POLL_FIRST_MS;
      this.handedOn(left);
    } else if (polled) {
      this.drainPollMs = Math.min(this.drainPollMs * 2, DRAIN_POLL_MAX_MS);
    }
    if (this.owed === 0 || this.drainPoll) return;
    this.drainPoll = setTimeout(() => {
      this.drainPoll = null;
      this.repay(true);
    }, this.drainPollMs);
  }

  override onWsClose(code: number, reason: string): void {
    if (this.finished) return;
    const client = this.client;
    this.finish();
    if (client) closeQuietly(client, code, reason);
  }

  /** Ends the exchange from here: the agent closes the upstream with the same code, the client gets it too. */
  private closeBothWays(code: number, reason: string): void {
    if (this.finished) return;
    this.link.sendControl({ type: "ws_close", stream: this.id, code, reason });
    this.onWsClose(code, reason);
  }

  onAbort(reason: string): void {
    if (this.finished) return;
    // Before it is accepted, the agent's refusal (nothing listens on the port) is the client's 502 and its access line.
    if (this.client) this.log("warn", "proxied WebSocket closed: the upstream failed", { reason });
    this.end(reason);
  }

  onDisconnect(): void {
    if (this.finished) return;
    this.log("warn", this.client ? "proxied WebSocket closed: the host disconnected" : "proxied WebSocket failed: the host disconnected");
    this.end("the host disconnected");
  }

  /** Closed both ways with 1008 and `reason`; before the accept the client gets a 401 saying it, and the agent an abort. */
  revoke(reason: string): void {
    if (this.finished) return;
    this.log("info", "WebSocket ended: the credential that opened it ended", { reason });
    if (this.client) return this.closeBothWays(POLICY_VIOLATION, reason);
    this.sendAbort(reason);
    this.finish();
    this.resolveAccept(errorResponse("unauthorized", reason));
  }

  /** The proxy side gave up: tell the agent, and the client. */
  abort(reason: string): void {
    if (this.finished) return;
    this.sendAbort(reason);
    this.end(reason);
  }

  /** Before the accept the client gets a 502; after it the socket closes with 1011. */
  private end(reason: string): void {
    if (!this.client) {
      this.finish();
      this.resolveAccept(reason === "upstream_unavailable" ? upstreamUnavailable() : upstreamUnavailable(reason));
      return;
    }
    this.onWsClose(INTERNAL_ERROR, "upstream failed");
  }
}
