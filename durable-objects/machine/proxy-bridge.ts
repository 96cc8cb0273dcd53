// The MachineDO's end of the proxy multiplexer: opens proxied HTTP exchanges, WebSockets and
// container log streams (answered by the agent as HTTP responses) over the one agent socket (it
// assigns the stream ids) and routes the agent's frames to them through the shared stream table.
// It notes which credential opened each WebSocket and log stream, and ends them when it ends
// (stream-credentials.ts). Streams live in memory only: an open stream keeps the MachineDO awake,
// and when the agent socket goes away every stream is failed at once so nothing waits forever.
import { log, type LogFields } from "../../core/log.ts";
import { decodeDataFrame, decodeResponseFrame, encodeMessage, RESPONSE_FRAME_KIND, responseFrameStream, StreamTable, type AgentMessage, type ServerMessage } from "../../protocol/index.ts";
import type { FilesRequest } from "../contracts/files-request.ts";
import type { LogsRequest } from "../contracts/logs-request.ts";
import type { AgentSession, ProxyTarget } from "../contracts/proxy-request.ts";
import { upstreamUnavailable, type BridgeStream, type StreamLink } from "./bridge-stream.ts";
import { ReadBufferBudget } from "./body-reads.ts";
import { HttpStream } from "./http-stream.ts";
import { QueueBudget } from "./queue-budget.ts";
import { StreamCredentials } from "./stream-credentials.ts";
import { StreamQuota, type StreamOwner, type StreamWatcher } from "./stream-quota.ts";
import { UploadBudget } from "./upload-budget.ts";
import { WsStream } from "./ws-stream.ts";

type StreamMessage = Exclude<Extract<AgentMessage, { stream: number }>, { type: "ssh_key_used" }>;

/** How long the agent has to answer a logs request (one from before logs existed never does) before the client gets a 502. */
export const LOGS_ANSWER_TIMEOUT_MS = 30_000;

interface HttpStreamOptions {
  /** Without a response head by then, the stream is given up and the client gets a 502. */
  headTimeoutMs?: number;
  /** Whether it counts as the instance being used (StreamQuota.take). */
  traffic?: boolean;
  /**
   * Whether it may stay open for long (a followed log), and so ends when the credential that opened it
   * does. A proxied exchange does not: it is one request, and the next one of a revoked credential is refused.
   */
  longLived?: boolean;
  /** A proxied exchange, whose response's headers the Worker builds (HttpStream). */
  proxied?: boolean;
}

export class ProxyBridge {
  private readonly streams = new StreamTable<BridgeStream>();
  /** Each open SSH stream's instance and the ids of the keys its ssh_open offered, until the agent names the one used. */
  private readonly sshOffers = new Map<number, { instanceId: string; keyIds: string[] }>();
  private readonly quota: StreamQuota;
  /** What clients' WebSocket messages may wait for here, all of this MachineDO's WebSockets together. */
  private readonly queues = new QueueBudget();
  /** What request bodies are read into here beyond their first small buffer, all bodies together. */
  private readonly readBuffers = new ReadBufferBudget();
  /** What streams have sent to the agent that it has not yet handed on, all streams together. */
  private readonly uploads = new UploadBudget();
  /** Which credential opened each WebSocket and log stream, to end them when it ends. */
  readonly credentials = new StreamCredentials();
  private nextId = 1;

  private readonly socket: () => WebSocket | null;

  /** `watcher`: told of each proxied stream as it opens and ends (the idle stop's traffic). */
  constructor(socket: () => WebSocket | null, watcher: StreamWatcher | null = null) {
    this.socket = socket;
    this.quota = new StreamQuota(watcher);
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /**
   * A proxied exchange, answered with the upstream's headers as they came for the Worker to build the
   * client's (contracts/upstream-answer.ts). `owner`: whose stream it is, counted against its caps
   * (stream-quota.ts); `logIds`: the ids of the request, for the stream's log lines (taken only when one is written).
   */
  openHttp(target: ProxyTarget, owner: StreamOwner, body: ReadableStream<Uint8Array> | null, logIds: () => LogFields = () => ({})): Promise<Response> {
    return this.openHttpStream(owner, target.method, body, logIds, (id) => ({
      type: "http_request", stream: id, instance_id: target.instanceId, port: target.port,
      method: target.method, path: target.target, headers: target.headers, has_body: body !== null,
    }), { proxied: true });
  }

  /** A container's logs: the agent answers as it answers a GET, so the response is relayed the same way. */
  openLogs(request: LogsRequest, owner: StreamOwner, logIds: () => LogFields = () => ({})): Promise<Response> {
    return this.openHttpStream(owner, "GET", null, () => ({ ...logIds(), stream: "logs" }), (id) => ({
      type: "logs_open", stream: id, instance_id: request.instanceId, tail: request.tail, follow: request.follow, format: request.format,
    }), { headTimeoutMs: LOGS_ANSWER_TIMEOUT_MS, traffic: false, longLived: true });
  }

  /**
   * An instance's files as a tar (get), a tar body extracted there (put), or a part of an upload
   * staged by the agent (at most `uploadRoom` bytes in all): answered as an HTTP response.
   */
  openFiles(request: FilesRequest, owner: StreamOwner, body: ReadableStream<Uint8Array> | null, uploadRoom: number, logIds: () => LogFields = () => ({})): Promise<Response> {
    const upload = request.upload ? { upload: { ...request.upload, max_bytes: uploadRoom } } : {};
    return this.openHttpStream(owner, request.op === "put" ? "PUT" : "GET", body, () => ({ ...logIds(), stream: "files" }), (id) => ({
      type: "files_open", stream: id, instance_id: request.instanceId, op: request.op, path: request.path, ...upload,
    }));
  }

  /** `session`: a WebSocket the agent ends itself (its SSH server, a terminal's shell), not one to a container port. */
  openWebSocket(target: ProxyTarget, owner: StreamOwner, protocols: string[], logIds: () => LogFields = () => ({}), session?: AgentSession): Promise<Response> {
    const socket = this.socket();
    if (!socket) return Promise.resolve(upstreamUnavailable());
    const release = this.quota.take(owner);
    if (release instanceof Response) return Promise.resolve(release);
    const id = this.allocate();
    const link = this.link(socket, id, owner, () => stream, () => ({ ...logIds(), stream: session?.kind ?? "websocket" }), release);
    const stream = new WsStream(id, link, this.queues, owner.accountId);
    this.streams.add(id, stream);
    this.credentials.opened(id, owner.accountId, owner.opener ?? null, (reason) => stream.revoke(reason));
    if (session?.kind === "ssh") this.sshOffers.set(id, { instanceId: target.instanceId, keyIds: session.keys.map((key) => key.id) });
    link.sendControl(openingOf(id, target, protocols, session));
    return stream.accepted;
  }

  /** Routes a stream control message from the agent; false when no such stream is open. */
  onMessage(message: StreamMessage): boolean {
    if (message.type !== "http_response" && message.type !== "ws_accepted") return this.streams.route(message);
    // The answers that complete an opening are this end's own; the table routes the rest.
    const stream = this.streams.get(message.stream);
    if (!stream) return false;
    if (message.type === "http_response" && stream instanceof HttpStream) stream.onResponseHead(message.status, message.headers, message.body);
    if (message.type === "ws_accepted" && stream instanceof WsStream) stream.onAccepted(message.protocol);
    return true;
  }

  /**
   * The instance whose SSH connection on `stream` authenticated with `keyId`, when that key was one its
   * ssh_open offered; else null. Answered once per stream, so an agent names at most one key per
   * connection the MachineDO opened.
   */
  sshKeyUsed(stream: number, keyId: string): string | null {
    const offer = this.sshOffers.get(stream);
    this.sshOffers.delete(stream);
    if (!offer?.keyIds.includes(keyId)) return null;
    this.credentials.sshKeyUsed(stream, keyId);
    return offer.instanceId;
  }

  /** Routes a binary frame; returns a reason when it is not acceptable. */
  onBinary(bytes: Uint8Array): string | null {
    if (bytes[0] === RESPONSE_FRAME_KIND) return this.onResponseFrame(bytes);
    const frame = decodeDataFrame(bytes);
    if ("error" in frame) return frame.error;
    return this.streams.routeData(frame);
  }

  /** A small response whole (an answer that completes an opening, so this end's own, as `http_response` is). */
  private onResponseFrame(bytes: Uint8Array): string | null {
    const frame = decodeResponseFrame(bytes);
    const id = "error" in frame ? responseFrameStream(bytes) : frame.stream;
    const stream = this.streams.get(id);
    // Like data, a frame for a stream no longer open crossed its end.
    if (!stream) return "error" in frame ? frame.error : null;
    if (!(stream instanceof HttpStream)) return `response frame on websocket stream ${id}`;
    if ("error" in frame) {
      stream.failMalformed(`malformed response frame: ${frame.error}`);
      return frame.error;
    }
    stream.onResponseFrame(frame);
    return null;
  }

  /** The agent socket is gone: fail every stream (clients see a 502 or a broken body). */
  abortAll(): void {
    this.streams.disconnectAll();
  }

  private openHttpStream(
    owner: StreamOwner, method: string, body: ReadableStream<Uint8Array> | null, logIds: () => LogFields,
    opening: (id: number) => ServerMessage, { headTimeoutMs, traffic = true, longLived = false, proxied = false }: HttpStreamOptions = {},
  ): Promise<Response> {
    const socket = this.socket();
    if (!socket) return Promise.resolve(upstreamUnavailable());
    const release = this.quota.take(owner, traffic);
    if (release instanceof Response) return Promise.resolve(release);
    const id = this.allocate();
    const link = this.link(socket, id, owner, () => stream, () => ({ stream: "http", ...logIds() }), release);
    const stream = new HttpStream(id, link, method, this.readBuffers.roomFor(owner.accountId), proxied);
    this.streams.add(id, stream);
    if (longLived) this.credentials.opened(id, owner.accountId, owner.opener ?? null, (reason) => stream.revoke(reason));
    link.sendControl(opening(id));
    if (body) void stream.pumpBody(body);
    if (headTimeoutMs !== undefined) {
      const timer = setTimeout(() => {
        log("warn", "no answer from the host's agent in time", { ...link.logIds(), timeout_ms: headTimeoutMs });
        stream.fail("no answer from the host", upstreamUnavailable("the host's agent did not answer in time"));
      }, headTimeoutMs);
      void stream.head.then(() => clearTimeout(timer));
    }
    return stream.head;
  }

  private allocate(): number {
    const id = this.nextId;
    this.nextId = this.nextId >= 0xfffffffe ? 1 : this.nextId + 1;
    return id;
  }

  /** `release`: gives the stream's place in its owner's caps back when the stream is over. */
  private link(socket: WebSocket, id: number, owner: StreamOwner, stream: () => BridgeStream, logIds: () => LogFields, release: () => void): StreamLink {
    return {
      upload: this.uploads.allowanceFor(owner.instanceId),
      sendControl: (message: ServerMessage) => sendQuietly(socket, encodeMessage(message)),
      sendData: (frame) => sendQuietly(socket, frame),
      close: () => {
        this.streams.remove(id, stream());
        this.sshOffers.delete(id);
        this.credentials.closed(id);
        release();
      },
      logIds: () => ({ ...logIds(), stream_id: id }),
    };
  }
}

function sendQuietly(socket: WebSocket, data: string | Uint8Array): void {
  try {
    socket.send(data);
  } catch {
    // The socket closed under us: webSocketClose will fail the streams.
  }
}

/** The control message that opens WebSocket stream `id` on the agent. */
function openingOf(id: number, target: ProxyTarget, protocols: string[], session: AgentSession | undefined): ServerMessage {
  const instance_id = target.instanceId;
  switch (session?.kind) {
    case "ssh":
      return { type: "ssh_open", stream: id, instance_id, keys: session.keys };
    case "terminal":
      return { type: "terminal_open", stream: id, instance_id, cols: session.cols, rows: session.rows };
    default:
      return { type: "ws_open", stream: id, instance_id, port: target.port, path: target.target, headers: target.headers, protocols };
  }
}
