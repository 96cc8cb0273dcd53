// The agent's WebSocket and its identity: hibernatable (tag "agent"), carrying in its attachment the id
// of the connection it belongs to. Only the connection the machine row names is current; a replaced
// socket that still delivers frames is refused, and commands go to the current one only.
import { randomBase32 } from "../../core/ids.ts";
import { closeQuietly, encodeMessage, type ServerMessage } from "../../protocol/index.ts";
import type { MachineRecord } from "./machine-record.ts";

const TAG = "agent";

export class AgentSocket {
  private readonly ctx: DurableObjectState;
  private readonly record: MachineRecord;
  /** machine.connection mirrored in memory: it is checked on every agent frame (undefined = not read yet). */
  private connectionId: string | null | undefined = undefined;
  /** Each socket's connection id, read from its attachment once (it is set at accept, and a socket woken from hibernation is a new object). */
  private readonly connections = new WeakMap<WebSocket, string>();
  /**
   * The current socket, looked up once (undefined: not since it last changed): every proxied request
   * sends on it, and the runtime's list of sockets cost a twentieth of a small request's CPU here. It
   * changes only as a connection is accepted, or none is current any more (the machine went offline).
   */
  private currentSocket: WebSocket | null | undefined = undefined;

  constructor(ctx: DurableObjectState, record: MachineRecord) {
    this.ctx = ctx;
    this.record = record;
  }

  /** Makes `server` the current connection (close the old ones first). */
  accept(server: WebSocket): void {
    const connection = randomBase32(12);
    this.ctx.acceptWebSocket(server, [TAG]);
    server.serializeAttachment({ connection });
    this.connections.set(server, connection);
    this.record.setConnection(connection);
    this.connectionId = connection;
    this.currentSocket = server;
  }

  isCurrent(ws: WebSocket): boolean {
    const connection = this.connectionOf(ws);
    this.connectionId ??= this.record.read()?.connection ?? null;
    return connection !== "" && connection === this.connectionId;
  }

  /** The id of the connection `ws` belongs to ("" for a socket without one). */
  connectionOf(ws: WebSocket): string {
    let connection = this.connections.get(ws);
    if (connection === undefined) {
      connection = (ws.deserializeAttachment() as { connection?: string } | null)?.connection ?? "";
      this.connections.set(ws, connection);
    }
    return connection;
  }

  current(): WebSocket | null {
    if (this.currentSocket === undefined) this.currentSocket = this.ctx.getWebSockets(TAG).find((ws) => this.isCurrent(ws)) ?? null;
    return this.currentSocket;
  }

  /** Sends to the current agent while the machine is online; a frame lost with the connection is derived again at the next hello. */
  send(message: ServerMessage): void {
    const socket = this.current();
    if (socket && this.record.isOnline()) {
      try {
        socket.send(encodeMessage(message));
      } catch {
        // Lost with the connection: the next hello reconciles from scratch.
      }
    }
  }

  /** No connection is current any more (the machine row's connection was cleared with it). */
  forget(): void {
    this.connectionId = null;
    this.currentSocket = null;
  }

  closeAll(code: number, reason: string): void {
    this.currentSocket = undefined;
    for (const ws of this.ctx.getWebSockets(TAG)) closeQuietly(ws, code, reason);
  }
}
