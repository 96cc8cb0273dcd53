// A host agent speaking the real protocol over a real WebSocket to the Worker's agent endpoint, for
// workerd tests of MachineDO behaviour. (The real agent process is exercised by the Node e2e tests.)
import { exports } from "cloudflare:workers";
import {
  decodeDataFrame, decodeServerMessage, encodeDataFrame, encodeMessage, PROTOCOL_VERSION, type AgentMessage, type ContainerReport, type DataKind,
  type HostResources, type PortReadiness, type ServerMessage,
} from "../../../protocol/index.ts";
import { admin, machineOnline, seedGpuModels } from "./api-client.ts";
import { until } from "./poll.ts";

type Command = Extract<ServerMessage, { type: "command" }>;
type HttpRequest = Extract<ServerMessage, { type: "http_request" }>;
type HostVersions = Pick<Extract<AgentMessage, { type: "hello" }>, "agent_version" | "driver_version" | "cuda_version" | "degraded" | "ssh_host_key" | "disk">;

export class FakeAgent {
  readonly received: ServerMessage[] = [];
  /** Proxied request body bytes received, by stream id. */
  readonly bodies = new Map<number, number>();
  private waiters: (() => void)[] = [];
  private answerHttp: ((request: HttpRequest) => void) | null = null;
  private readonly listeners: ((message: ServerMessage) => void)[] = [];
  private socket: WebSocket | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  /** The code the MachineDO last closed this agent's socket with (null while open). */
  closedWith: number | null = null;
  readonly machineId: number;
  readonly token: string;

  constructor(machineId: number, token: string) {
    this.machineId = machineId;
    this.token = token;
  }

  static async register(name: string): Promise<FakeAgent> {
    const machine = await admin("POST", "/machines", { name });
    return new FakeAgent(machine.body.id as number, machine.body.agent_token as string);
  }

  /** A host online: the standard GPU models seeded (seedGpuModels), a machine named `name` registered, its agent connected with `gpus`. */
  static async online(name: string, gpus: string[]): Promise<FakeAgent> {
    await seedGpuModels();
    const agent = await FakeAgent.register(name);
    await agent.connect(gpus);
    return agent;
  }

  /**
   * Connects and says hello with `gpus` (model ids, or a model and an nvidia-smi name), the containers
   * it has, and the host's versions (by default a CUDA new enough for every template) and its memory
   * and CPUs (none by default, as from an older agent).
   */
  async connect(
    gpus: (string | { model: string; name: string })[], containers: ContainerReport[] = [], cached: string[] = [],
    host: Partial<HostVersions> & { host?: HostResources } = {},
    readiness?: PortReadiness[],
  ): Promise<void> {
    const response = await exports.default.fetch(new Request("http://gpu.test/agent/v1/connect", {
      headers: { upgrade: "websocket", authorization: `Bearer ${this.token}` },
    }));
    const socket = response.webSocket;
    if (!socket) throw new Error(`agent connect refused: ${response.status} ${await response.text()}`);
    socket.accept();
    socket.binaryType = "arraybuffer";
    this.closedWith = null;
    socket.addEventListener("close", (event) => {
      this.closedWith = event.code;
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.received.length = 0;
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") {
        const frame = decodeDataFrame(new Uint8Array(event.data as ArrayBuffer));
        if (!("error" in frame)) this.bodies.set(frame.stream, (this.bodies.get(frame.stream) ?? 0) + frame.payload.byteLength);
        return;
      }
      const decoded = decodeServerMessage(event.data);
      if (decoded.ok) {
        this.received.push(decoded.message);
        if (decoded.message.type === "http_request") this.answerHttp?.(decoded.message);
        for (const listener of this.listeners) listener(decoded.message);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.socket = socket;
    this.send({
      type: "hello", protocol: PROTOCOL_VERSION, agent_version: "test", runtime: "fake", hostname: "fake-host",
      driver_version: "580.126.09", cuda_version: "13.0", ...host,
      gpus: gpus.map((gpu, index) => ({ index, ...(typeof gpu === "string" ? { model: gpu, name: gpu } : gpu), uuid: `GPU-${index}`, vram_mb: 24_000 })),
      containers, cached_models: cached, ...(readiness ? { readiness } : {}),
    });
    const welcome = await this.waitFor((m): m is Extract<ServerMessage, { type: "welcome" }> => m.type === "welcome");
    this.heartbeat = setInterval(() => this.send({ type: "heartbeat" }), welcome.heartbeat_ms);
  }

  /** Calls `listener` with every message the server sends from now on (to answer as it arrives). */
  onMessage(listener: (message: ServerMessage) => void): void {
    this.listeners.push(listener);
  }

  /** Goes silent without closing the socket, as a host whose network died would. */
  stopHeartbeats(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  send(message: AgentMessage): void {
    try {
      this.socket?.send(encodeMessage(message));
    } catch (error) {
      // Only a socket the MachineDO has closed under us may refuse a send; anything else is a failure.
      if (this.socket?.readyState === WebSocket.OPEN) throw error;
      this.stopHeartbeats();
    }
  }

  /** A binary data frame of a stream (a response body, as the agent sends it). */
  sendData(kind: DataKind, stream: number, payload: Uint8Array): void {
    this.socket?.send(encodeDataFrame(kind, stream, payload));
  }

  /** Sends a binary frame as it is (a whole response's, protocol/mux/response-frame.ts, or a malformed one). */
  sendBinary(frame: Uint8Array): void {
    this.socket?.send(frame);
  }

  /** Sends a raw text frame, for encodings the typed `send` would never produce. */
  sendText(text: string): void {
    this.socket?.send(text);
  }

  /**
   * Answers every proxied HTTP request from now on as a model server would: `status` and an empty
   * body, once the request's body (if any) has fully arrived.
   */
  serveHttp(status = 200): void {
    this.answerHttp = (request) => {
      const answer = () => {
        this.send({ type: "http_response", stream: request.stream, status, headers: [["content-type", "text/plain"]] });
        this.send({ type: "end", stream: request.stream });
      };
      if (!request.has_body) return answer();
      void this.waitFor((m) => m.type === "end" && m.stream === request.stream).then(answer);
    };
  }

  /** The proxied HTTP requests this agent was handed, for `instanceId` or all. */
  httpRequests(instanceId?: string): HttpRequest[] {
    return this.received.filter((m): m is HttpRequest => m.type === "http_request" && (instanceId === undefined || m.instance_id === instanceId));
  }

  report(instanceId: string, state: ContainerReport["state"], message = ""): void {
    this.send({ type: "container", instance_id: instanceId, state, message });
  }

  disconnect(): void {
    this.stopHeartbeats();
    this.socket?.close(1000, "test disconnect");
    this.socket = null;
  }

  /**
   * Disconnects and waits until the fleet lists the machine offline: the MachineDO has handled every
   * frame sent before the close and taken the machine offline (logging it), so a test that ends here
   * leaves no work of its object running after its environment is torn down.
   */
  async leave(): Promise<void> {
    this.disconnect();
    await until(() => machineOnline(this.machineId), (online) => !online, `machine ${this.machineId} to go offline`);
  }

  /** Waits (by message arrival, never by sleeping) until a received message matches. */
  async waitFor<T extends ServerMessage>(match: (m: ServerMessage) => m is T): Promise<T>;
  async waitFor(match: (m: ServerMessage) => boolean): Promise<ServerMessage>;
  async waitFor(match: (m: ServerMessage) => boolean): Promise<ServerMessage> {
    for (let rounds = 0; rounds < 200; rounds++) {
      const found = this.received.find(match);
      if (found) return found;
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), tick(50)]);
    }
    throw new Error(`no matching message; received: ${JSON.stringify(this.received.map((m) => m.type))}`);
  }

  /** How many heartbeats the server has answered on this connection. */
  heartbeatAcks(): number {
    return this.received.filter((m) => m.type === "heartbeat_ack").length;
  }

  /** Waits until the server has answered `count` heartbeats on this connection. */
  async waitForHeartbeatAcks(count: number): Promise<void> {
    await this.waitFor(() => this.heartbeatAcks() >= count);
  }

  commands(instanceId: string): Command[] {
    return this.received.filter((m): m is Command => m.type === "command" && m.instance_id === instanceId);
  }

  waitForCommand(instanceId: string, op: Command["op"]): Promise<Command> {
    return this.waitFor((m): m is Command => m.type === "command" && m.instance_id === instanceId && m.op === op);
  }
}

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
