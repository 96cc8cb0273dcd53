// The agent's control channel to its MachineDO (modelled on frp's client control): dial out with the
// agent token, hello on open, heartbeats at the server's pace, drop the socket after 3 silent
// heartbeat periods, and reconnect with jittered backoff that resets after a stable period.
import WebSocket from "ws";
import { decodeServerMessage, encodeMessage } from "../protocol/codec.ts";
import { releaseWhole } from "../protocol/mux/buffer-release.ts";
import { decodeDataFrame, encodeDataFrame, frameInPlace, type DataFrame, type DataKind } from "../protocol/mux/frames.ts";
import type { AgentMessage, ServerMessage } from "../protocol/messages.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import type { Backoff } from "./backoff.ts";
import { errorMessage, type Logger } from "./log.ts";
import type { StreamTransport } from "./proxy/stream-transport.ts";
import { RelayedBuffers } from "./relayed-buffers.ts";

export interface AgentConnectionOptions {
  url: string;
  token: string;
  backoff: Backoff;
  log: Logger;
  /** Built anew for every connection, so it carries the latest container states. */
  buildHello(): Promise<AgentMessage>;
  /** Every decoded server frame but the welcome and heartbeat answers, which the connection handles itself. */
  onMessage(message: Exclude<ServerMessage, { type: "welcome" | "heartbeat_ack" }>): void;
  onData(frame: DataFrame): void;
  /** The server welcomed this connection: what it says of itself holds until the next. */
  onWelcome?(message: Extract<ServerMessage, { type: "welcome" }>): void;
  /** The socket is gone: whatever was bound to it (proxied streams) must end. */
  onDisconnect(): void;
  /** Handling a frame of `stream` threw: that stream must end; the connection and every other stream go on. */
  onStreamFault(stream: number): void;
  /** Time allowed between hello and welcome. */
  welcomeTimeoutMs?: number;
  /** A connection that lasted this long resets the backoff. */
  stableAfterMs?: number;
}

/** Above this much unsent data on the socket, proxied streams stop reading their upstreams. */
const CONGESTED_BYTES = 4 * 1024 * 1024;
const DRAIN_POLL_MS = 10;

function zeroMask(mask: Buffer): void {
  mask.fill(0);
}

export class AgentConnection implements StreamTransport {
  readonly #options: AgentConnectionOptions;
  #socket: WebSocket | null = null;
  /** True once the hello went out on the current socket: only then may other frames follow it. */
  #helloSent = false;
  /** Frames sent while the hello was being built; they follow it so that none is lost. */
  #afterHello: string[] = [];
  #stopped = false;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #drainWaiters: (() => void)[] = [];
  #drainTimer: NodeJS.Timeout | null = null;
  /** Counts what crosses the socket, to give its buffers back (relayed-buffers.ts). */
  readonly #relayed = new RelayedBuffers();

  constructor(options: AgentConnectionOptions) {
    this.#options = options;
  }

  start(): void {
    this.#connect();
  }

  /**
   * Sends a control frame; dropped when not connected (container states are re-sent in the next
   * hello). Says whether it went out (or waits for the hello to go first): a request knows at once
   * that no answer will come.
   */
  send(message: AgentMessage): boolean {
    if (this.#socket?.readyState !== WebSocket.OPEN) return false;
    if (this.#helloSent) this.#socket.send(encodeMessage(message));
    else this.#afterHello.push(encodeMessage(message));
    return true;
  }

  sendData(kind: DataKind, stream: number, payload: Uint8Array, headroom = false): void {
    if (!this.#helloSent || this.#socket?.readyState !== WebSocket.OPEN) return;
    this.sendFrame(headroom ? frameInPlace(kind, stream, payload) : encodeDataFrame(kind, stream, payload));
  }

  sendFrame(frame: Uint8Array): void {
    if (!this.#helloSent || this.#socket?.readyState !== WebSocket.OPEN) return;
    // Written out (or failed), the frame is done with: its buffer goes back now (protocol/mux/buffer-release.ts).
    this.#socket.send(frame, () => releaseWhole(frame));
    this.#relayed.relayed(frame.byteLength);
  }

  congested(): boolean {
    return (this.#socket?.bufferedAmount ?? 0) > CONGESTED_BYTES;
  }

  whenUncongested(callback: () => void): void {
    this.#drainWaiters.push(callback);
    this.#drainTimer ??= setInterval(() => {
      if (this.congested()) return;
      if (this.#drainTimer) clearInterval(this.#drainTimer);
      this.#drainTimer = null;
      for (const waiter of this.#drainWaiters.splice(0)) waiter();
    }, DRAIN_POLL_MS);
  }

  async close(): Promise<void> {
    this.#stopped = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    const socket = this.#socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    if (socket.readyState === WebSocket.OPEN) socket.close(1000, "agent shutting down");
    else socket.terminate();
    const forced = setTimeout(() => socket.terminate(), 2_000);
    await closed;
    clearTimeout(forced);
  }

  /**
   * Hands one frame to its handler. A handler that throws is the agent's own fault in that stream, and
   * ends that stream only: the throw never reaches the socket's reader, which would stop reading every
   * frame after it, for every tenant on the host.
   */
  #deliver(handle: () => void, type: string, stream: number | undefined): void {
    try {
      handle();
    } catch (error) {
      this.#options.log.error("frame handling failed", { type, ...(stream === undefined ? {} : { stream }), error: errorMessage(error) });
      if (stream !== undefined) this.#options.onStreamFault(stream);
    }
  }

  #connect(): void {
    const { url, token, log } = this.#options;
    // An all-zero mask lets `ws` skip XOR-ing every payload byte in JavaScript (half the agent's CPU on
    // downloads). Masking (RFC 6455 §5.3) protects intermediaries from browser-hosted scripts; the
    // agent is not one, and it talks to the server over TLS in production.
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false, generateMask: zeroMask });
    this.#socket = socket;
    this.#helloSent = false;
    this.#afterHello = [];
    let welcomedAt = 0;
    let lastFrameAt = Date.now();
    let heartbeat: NodeJS.Timeout | null = null;
    let welcomeTimer: NodeJS.Timeout | null = null;
    let rejected = false;

    socket.on("unexpected-response", (req, res) => {
      rejected = true;
      log.error(res.statusCode === 401 ? "server rejected the agent token" : "server refused the agent connection", { status: res.statusCode });
      res.resume();
      socket.terminate();
    });
    socket.on("open", () => {
      this.#options.buildHello().then(
        (hello) => {
          if (socket !== this.#socket || socket.readyState !== WebSocket.OPEN) return;
          socket.send(encodeMessage(hello));
          this.#helloSent = true;
          for (const frame of this.#afterHello.splice(0)) socket.send(frame);
          welcomeTimer = setTimeout(() => {
            log.warn("no welcome from the server in time, reconnecting");
            socket.terminate();
          }, this.#options.welcomeTimeoutMs ?? 10_000);
        },
        (error: unknown) => {
          log.error("could not build the hello", { error: String(error) });
          socket.terminate();
        },
      );
    });
    // Pongs count as life too, besides every frame (the server answers each heartbeat with heartbeat_ack).
    socket.on("pong", () => {
      lastFrameAt = Date.now();
    });
    socket.on("ping", () => {
      lastFrameAt = Date.now();
    });
    socket.on("message", (data, isBinary) => {
      lastFrameAt = Date.now();
      // ws hands each message over in a Buffer of its own: taken as it is, not copied (frames' payloads are views of it).
      const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? Buffer.from(data) : data;
      if (isBinary) {
        this.#relayed.relayed(bytes.byteLength);
        const frame = decodeDataFrame(bytes);
        if ("error" in frame) return log.warn("malformed data frame ignored", { reason: frame.error });
        return this.#deliver(() => this.#options.onData(frame), "data", frame.stream);
      }
      const decoded = decodeServerMessage(bytes.toString("utf8"));
      if (!decoded.ok) return log.warn("malformed frame ignored", { reason: decoded.reason });
      const message = decoded.message;
      if (message.type === "heartbeat_ack") return;
      if (message.type !== "welcome") return this.#deliver(() => this.#options.onMessage(message), message.type, "stream" in message ? message.stream : undefined);
      if (message.protocol !== PROTOCOL_VERSION) log.warn("server speaks another protocol version", { server: message.protocol, agent: PROTOCOL_VERSION });
      if (welcomeTimer) clearTimeout(welcomeTimer);
      if (heartbeat) clearInterval(heartbeat);
      welcomedAt = Date.now();
      log.addContext({ machine_id: message.machine_id });
      log.info("connected", { heartbeat_ms: message.heartbeat_ms });
      this.#options.onWelcome?.(message);
      heartbeat = setInterval(() => {
        if (Date.now() - lastFrameAt > 3 * message.heartbeat_ms) {
          log.warn("server silent for 3 heartbeats, reconnecting");
          return socket.terminate();
        }
        // Exactly `{"type":"heartbeat"}`: the server's runtime answers that text without waking the MachineDO.
        this.send({ type: "heartbeat" });
        socket.ping();
      }, message.heartbeat_ms);
    });
    socket.on("error", (error) => {
      if (!rejected) log.warn("connection error", { error: error.message });
    });
    socket.on("close", (code, reason) => {
      if (heartbeat) clearInterval(heartbeat);
      if (welcomeTimer) clearTimeout(welcomeTimer);
      if (socket !== this.#socket) return;
      this.#helloSent = false;
      this.#options.onDisconnect();
      if (this.#stopped) return;
      if (welcomedAt > 0 && Date.now() - welcomedAt >= (this.#options.stableAfterMs ?? 30_000)) this.#options.backoff.reset();
      const delayMs = this.#options.backoff.nextDelayMs();
      log.info("disconnected", { code, reason: reason.toString("utf8"), reconnect_in_ms: delayMs });
      this.#reconnectTimer = setTimeout(() => this.#connect(), delayMs);
    });
  }
}
