// The MachineDO's side of the agent protocol for tests: a real ws server at /agent/v1/connect that
// records every frame the agent sends and lets a test send commands, stream frames and garbage.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { decodeAgentMessage, encodeMessage } from "../../../protocol/codec.ts";
import { decodeDataFrame, encodeDataFrame, type DataFrame, type DataKind } from "../../../protocol/mux/frames.ts";
import type { AgentMessage, ServerMessage } from "../../../protocol/messages.ts";
import { waitUntil } from "./wait-until.ts";

export type Received = { connection: number; message: AgentMessage } | { connection: number; frame: DataFrame };

export class FakeMachineDo {
  readonly token: string;
  readonly received: Received[] = [];
  readonly rejectedTokens: string[] = [];
  /** Frames the agent sent that the protocol rejects: a correct agent leaves this empty. */
  readonly protocolErrors: string[] = [];
  /** The next connections get a 401 whatever their token. */
  rejectNext = 0;
  #http: Server;
  #wss = new WebSocketServer({ noServer: true });
  #sockets: WebSocket[] = [];
  #listeners: ((message: AgentMessage) => void)[] = [];

  constructor(token: string) {
    this.token = token;
    this.#http = createServer((_, res) => res.writeHead(404).end());
    this.#http.on("upgrade", (req, socket, head) => {
      const authorized = req.headers.authorization === `Bearer ${this.token}`;
      if (req.url !== "/agent/v1/connect" || !authorized || this.rejectNext > 0) {
        if (this.rejectNext > 0) this.rejectNext--;
        this.rejectedTokens.push(req.headers.authorization ?? "");
        return void socket.end("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws));
    });
  }

  async listen(): Promise<string> {
    this.#http.listen(0, "127.0.0.1");
    await once(this.#http, "listening");
    return `http://127.0.0.1:${(this.#http.address() as AddressInfo).port}`;
  }

  get connectionCount(): number {
    return this.#sockets.length;
  }

  /** Calls `listener` with every message the agent sends from now on (to answer as it arrives). */
  onMessage(listener: (message: AgentMessage) => void): void {
    this.#listeners.push(listener);
  }

  messages(connection?: number): AgentMessage[] {
    return this.received.flatMap((r) => ("message" in r && (connection === undefined || r.connection === connection) ? [r.message] : []));
  }

  /** Waits for the first agent message (from `afterIndex` on in `received`) that matches. */
  async waitFor<T extends AgentMessage["type"]>(type: T, match: (m: Extract<AgentMessage, { type: T }>) => boolean = () => true, afterIndex = 0, timeoutMs = 10_000) {
    return waitUntil(() => {
      for (const r of this.received.slice(afterIndex)) {
        if ("message" in r && r.message.type === type && match(r.message as Extract<AgentMessage, { type: T }>)) return r.message as Extract<AgentMessage, { type: T }>;
      }
      return undefined;
    }, `agent message ${type}`, timeoutMs);
  }

  /** Payload bytes received so far on a stream. */
  streamBytes(stream: number): Buffer {
    return Buffer.concat(this.received.flatMap((r) => ("frame" in r && r.frame.stream === stream ? [Buffer.from(r.frame.payload)] : [])));
  }

  streamMessages(stream: number): AgentMessage[] {
    return this.messages().filter((m) => "stream" in m && m.stream === stream);
  }

  send(message: ServerMessage): void {
    this.#current().send(encodeMessage(message));
  }

  sendData(kind: DataKind, stream: number, payload: Uint8Array): void {
    this.#current().send(encodeDataFrame(kind, stream, payload));
  }

  sendRaw(data: string | Uint8Array): void {
    this.#current().send(data);
  }

  /** Closes the current agent socket abruptly, as a dropped network would. */
  dropConnection(): void {
    this.#current().terminate();
  }

  /** Stops reading the current socket: no frames and no pongs reach the agent any more. */
  goSilent(): void {
    this.#current().pause();
  }

  async close(): Promise<void> {
    for (const ws of this.#sockets) ws.terminate();
    this.#http.closeAllConnections();
    await new Promise((resolve) => this.#http.close(resolve));
  }

  #current(): WebSocket {
    const ws = this.#sockets.at(-1);
    if (!ws) throw new Error("no agent connected");
    return ws;
  }

  #accept(ws: WebSocket): void {
    this.#sockets.push(ws);
    const connection = this.#sockets.length;
    ws.on("message", (data, isBinary) => {
      const bytes = data as Buffer;
      if (isBinary) {
        const frame = decodeDataFrame(bytes);
        if ("error" in frame) return void this.protocolErrors.push(frame.error);
        this.received.push({ connection, frame });
        return;
      }
      const decoded = decodeAgentMessage(bytes.toString("utf8"));
      if (!decoded.ok) return void this.protocolErrors.push(decoded.reason);
      this.received.push({ connection, message: decoded.message });
      for (const listener of this.#listeners) listener(decoded.message);
    });
  }
}
