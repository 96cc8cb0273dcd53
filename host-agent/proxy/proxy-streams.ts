// The agent's end of the proxy multiplexer: opens HTTP and WebSocket streams to container ports,
// streams of container logs, SSH connections and terminals when the MachineDO asks, and routes its
// stream frames (data, window, end, abort, ws_close) to them through the shared stream table. Each
// stream sends through its own view of the connection, counted against the budget of what the
// MachineDO may hold (send-budget.ts).
import type { DataFrame } from "../../protocol/mux/frames.ts";
import { StreamTable, type StreamControl } from "../../protocol/mux/stream-table.ts";
import { errorMessage, type Logger } from "../log.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import type { UploadStaging } from "../files/upload-staging.ts";
import { FilesStream, type FilesOpenMessage, type FilesRuntime } from "./files-stream.ts";
import { HttpProxyStream, type HttpRequestMessage } from "./http-proxy-stream.ts";
import { LogsStream, type LogsOpenMessage } from "./logs-stream.ts";
import type { WholeResponses } from "./response-stream.ts";
import { SendBudget } from "./send-budget.ts";
import type { StreamTransport } from "./stream-transport.ts";
import { WsProxyStream, type WsOpenMessage } from "./ws-proxy-stream.ts";
import type { SshHostKey } from "../ssh/host-key.ts";
import { SESSIONS_END_WITHIN_MS, type SessionEnder } from "../ssh/session-ender.ts";
import { serveSshConnection, type SshRuntime } from "../ssh/ssh-server.ts";
import { SshStream, type SshOpenMessage } from "../ssh/ssh-stream.ts";
import { TerminalStream, type TerminalOpenMessage } from "../terminal/terminal-stream.ts";

export type StreamRuntime = Pick<ContainerRuntime, "resolvePort" | "logs" | "exec">;

/** An SSH connection or a terminal: a person's session in an instance, ended with a reason when the instance goes away. */
interface OpenSession extends PromiseWithResolvers<void> {
  instanceId: string;
  end(reason: string): void;
}

type OpenStream = HttpProxyStream | WsProxyStream | LogsStream | SshStream | TerminalStream | FilesStream;

export class ProxyStreams {
  readonly #runtime: StreamRuntime;
  readonly #transport: StreamTransport;
  /** Every stream sends through it: what the MachineDO holds of the agent's data stays bounded. */
  readonly #budget: SendBudget;
  readonly #log: Logger;
  readonly #streams = new StreamTable<OpenStream>();
  readonly #sessions = new Map<number, OpenSession>();
  readonly #logKeepAliveMs: number | undefined;
  readonly #ssh: { hostKey: SshHostKey; runtime: SshRuntime } | null;
  readonly #files: FilesRuntime | null;
  readonly #uploads: UploadStaging | null;
  /** How the MachineDO now connected takes a small response whole (its welcome). */
  #wholeResponses: WholeResponses = null;

  /**
   * `logKeepAliveMs`: how long a followed log may be silent before a keep-alive comment (15 s unless given);
   * `ssh`: the SSH server's key and where its sessions run (without it, SSH connections are refused);
   * `files`: where instances' files are read and written (without it, files requests are refused);
   * `uploads`: where parts of resumable uploads are staged (without it, they are refused).
   */
  constructor(
    runtime: StreamRuntime, transport: StreamTransport, log: Logger, logKeepAliveMs?: number,
    ssh: { hostKey: SshHostKey; runtime: SshRuntime } | null = null, files: FilesRuntime | null = null, uploads: UploadStaging | null = null,
  ) {
    this.#runtime = runtime;
    this.#transport = transport;
    this.#budget = new SendBudget(transport);
    this.#log = log;
    this.#logKeepAliveMs = logKeepAliveMs;
    this.#ssh = ssh;
    this.#files = files;
    this.#uploads = uploads;
  }

  get openCount(): number {
    return this.#streams.size;
  }

  open(message: HttpRequestMessage | WsOpenMessage): void {
    this.#streams.get(message.stream)?.close();
    const { transport, forget } = this.#place(message);
    const closed = () => forget(stream);
    const stream = message.type === "http_request" ? new HttpProxyStream(message, transport, closed, this.#wholeResponses) : new WsProxyStream(message, transport, closed);
    // Registered before the port is resolved: body frames may arrive meanwhile.
    this.#streams.add(message.stream, stream);
    this.#runtime.resolvePort(message.instance_id, message.port).then(
      (endpoint) => stream.connect(endpoint),
      (error: unknown) => {
        this.#log.warn("container port lookup failed", { stream_id: message.stream, instance_id: message.instance_id, error: String(error) });
        stream.connect(null);
      },
    );
  }

  openLogs(message: LogsOpenMessage): void {
    this.#streams.get(message.stream)?.close();
    const { transport, forget } = this.#place(message);
    const stream = new LogsStream(message, transport, () => forget(stream), this.#logKeepAliveMs);
    this.#streams.add(message.stream, stream);
    this.#runtime.logs(message.instance_id, { tail: message.tail, follow: message.follow }).then(
      (source) => stream.connect(source),
      (error: unknown) => {
        this.#log.warn("container logs unreadable", { stream_id: message.stream, instance_id: message.instance_id, error: errorMessage(error) });
        stream.refuse(`the host could not read the logs: ${errorMessage(error)}`);
      },
    );
  }

  /** An SSH connection for the agent's own SSH server, with the keys the control plane allows. */
  openSsh(message: SshOpenMessage): void {
    this.#streams.get(message.stream)?.close();
    let ender: SessionEnder | null = null;
    const untrack = this.#trackSession(message.stream, message.instance_id, (reason) => ender?.end(reason));
    const { transport, forget } = this.#place(message);
    const stream = new SshStream(message, transport, () => {
      forget(stream);
      untrack();
    });
    this.#streams.add(message.stream, stream);
    if (!this.#ssh) return stream.refuse();
    stream.accept();
    // Which key authenticated goes to the MachineDO, which reports it to the key's account (its last use).
    const onKeyUsed = (keyId: string) => this.#transport.send({ type: "ssh_key_used", stream: message.stream, key_id: keyId });
    ender = serveSshConnection(stream.socket, { ...this.#ssh, keys: message.keys, instanceId: message.instance_id, log: this.#log, onKeyUsed });
  }

  /** The dashboard's terminal: a login shell in the container. */
  openTerminal(message: TerminalOpenMessage): void {
    this.#streams.get(message.stream)?.close();
    const untrack = this.#trackSession(message.stream, message.instance_id, (reason) => stream.endSession(reason));
    const { transport, forget } = this.#place(message);
    const stream = new TerminalStream(message, transport, () => {
      forget(stream);
      untrack();
    });
    this.#streams.add(message.stream, stream);
    void stream.start(this.#runtime);
  }

  /**
   * Ends the SSH connections and terminals in `instanceId` (in every instance when null), each told
   * `reason`; resolves once they have closed, or once they have had the time to.
   */
  async endSessions(instanceId: string | null, reason: string): Promise<void> {
    const ending = [...this.#sessions.values()].filter((session) => instanceId === null || session.instanceId === instanceId);
    for (const session of ending) session.end(reason);
    const late = new Promise<void>((resolve) => setTimeout(resolve, SESSIONS_END_WITHIN_MS + 1_000).unref());
    await Promise.race([Promise.all(ending.map((session) => session.promise)), late]);
  }

  /** Keeps stream `id` among the sessions until the function returned is called (its stream closed). */
  #trackSession(id: number, instanceId: string, end: (reason: string) => void): () => void {
    const session: OpenSession = { instanceId, end, ...Promise.withResolvers<void>() };
    this.#sessions.set(id, session);
    return () => {
      if (this.#sessions.get(id) === session) this.#sessions.delete(id);
      session.resolve();
    };
  }

  /** An instance's files: a tar of a path, a tar extracted into a directory, or a part of an upload. */
  openFiles(message: FilesOpenMessage): void {
    this.#streams.get(message.stream)?.close();
    const { transport, forget } = this.#place(message);
    const stream = new FilesStream(message, transport, () => forget(stream));
    this.#streams.add(message.stream, stream);
    if (!this.#files) return stream.refuse();
    stream.start(this.#files, this.#uploads);
  }

  /**
   * A new stream's view of the connection, within the budget of what the MachineDO may hold, and what
   * its closing does: the table forgets it and the budget has its bytes back.
   */
  #place(message: { stream: number; instance_id: string }) {
    const transport = this.#budget.transportFor(message.stream, message.instance_id);
    const forget = (stream: OpenStream) => {
      this.#streams.remove(message.stream, stream);
      transport.release();
    };
    return { transport, forget };
  }

  /** Routes a data frame; returns why it was refused, or null. */
  receiveData(frame: DataFrame): string | null {
    return this.#streams.routeData(frame);
  }

  /** Whether the MachineDO now connected settles streams (its welcome's `settles_streams`). */
  serverSettles(settles: boolean): void {
    this.#budget.serverSettles(settles);
  }

  /** How the MachineDO now connected takes a small response whole (its welcome). */
  serverTakesWholeResponses(form: WholeResponses): void {
    this.#wholeResponses = form;
  }

  receive(message: StreamControl): void {
    if (message.type === "window") this.#budget.acknowledged(message.stream, message.bytes);
    this.#streams.route(message);
    // After the stream has closed (and released its budget): the MachineDO dropped what it held of it.
    if (message.type === "abort" || message.type === "ws_close") this.#budget.drop(message.stream);
  }

  /** Handling a frame of stream `id` threw: that stream ends, telling the MachineDO; the others go on. */
  endFaulted(id: number): void {
    this.#streams.get(id)?.faulted();
  }

  /** The connection to the MachineDO is gone: no stream can continue. */
  closeAll(): void {
    this.#streams.disconnectAll();
    this.#budget.dropAll();
  }
}
