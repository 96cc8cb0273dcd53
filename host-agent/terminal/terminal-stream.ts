// The dashboard's terminal on the agent's multiplexer (terminal_open): a login shell in the instance's
// container on a terminal (Docker exec with a TTY; locally a shell in its folder), as an SSH session
// with a PTY gets, but spoken in WebSocket messages the browser's terminal sends and draws. Text
// messages are keystrokes, except `{"type":"resize","cols","rows"}`; output goes back as binary
// messages within the MachineDO's credit, the shell's reads paused while it has none; the shell's end
// closes the WebSocket with its exit status as the reason, after its last output.
import type { ServerMessage } from "../../protocol/messages.ts";
import { TERMINAL_MAX_SIZE } from "../../protocol/messages.ts";
import { NORMAL_CLOSURE } from "../../protocol/mux/close-codes.ts";
import { DataKind } from "../../protocol/mux/frames.ts";
import { AgentStream } from "../proxy/agent-stream.ts";
import { CreditedSender } from "../proxy/credited-sender.ts";
import type { ContainerRuntime, ExecProcess } from "../runtime/runtime.ts";

export type TerminalOpenMessage = Extract<ServerMessage, { type: "terminal_open" }>;
export type TerminalRuntime = Pick<ContainerRuntime, "exec">;

/** What a browser terminal (xterm.js) is: the shell's programs draw for it. */
const TERMINAL_ENV = { TERM: "xterm-256color", LANG: "C.UTF-8" };

export class TerminalStream extends AgentStream<TerminalOpenMessage> {
  readonly carries = "websocket";
  #shell: ExecProcess | null = null;
  readonly #sender = new CreditedSender(this.transport, this.message.stream, {
    onBacklog: () => this.#shell?.stdout.pause(),
    onDrained: () => this.#shell?.stdout.resume(),
  });

  /** Starts the shell; the client's WebSocket is accepted once it runs, refused when the container is not running. */
  async start(runtime: TerminalRuntime): Promise<void> {
    const { instance_id, cols, rows } = this.message;
    const shell = await runtime.exec(instance_id, { command: null, env: TERMINAL_ENV, pty: { cols, rows } }).catch(() => null);
    if (this.closed) return shell?.kill();
    if (!shell) return this.fail("upstream_unavailable");
    this.#shell = shell;
    this.transport.send({ type: "ws_accepted", stream: this.message.stream, protocol: "" });
    shell.stdout.on("data", (chunk: Buffer) => this.#sender.sendBytes(DataKind.wsBinary, chunk));
    shell.stdin.on("error", () => undefined);
    void shell.exit.then((status) => this.#sender.whenIdle(() => this.#end(NORMAL_CLOSURE, status === null ? "the shell ended" : `the shell exited with status ${status}`)));
  }

  onData(kind: DataKind, payload: Uint8Array): void {
    const shell = this.#shell;
    if (this.closed || !shell) return;
    if (!this.receive(payload.byteLength)) return this.fail("WebSocket data exceeded the flow-control window");
    const size = kind === DataKind.wsText ? resizeOf(payload) : null;
    if (size) {
      shell.resize(size.cols, size.rows);
      return this.consumed(payload.byteLength);
    }
    shell.stdin.write(payload, () => this.consumed(payload.byteLength));
  }

  /** The instance is going away: the terminal shows why, and the shell is ended (its exit closes the WebSocket). */
  endSession(reason: string): void {
    if (this.closed) return;
    if (!this.#shell) return this.fail("upstream_unavailable");
    this.#sender.sendBytes(DataKind.wsBinary, Buffer.from(`\r\n${reason}\r\n`));
    this.#shell.kill();
  }

  /** The browser closed its terminal: the shell is ended (its container and data stay). */
  override onWsClose(): void {
    this.#end(NORMAL_CLOSURE, "terminal closed");
  }

  onWindow(bytes: number): void {
    this.#sender.grant(bytes);
  }

  protected release(): void {
    this.#sender.stop();
    this.#shell?.kill();
  }

  #end(code: number, reason: string): void {
    if (this.closed) return;
    this.transport.send({ type: "ws_close", stream: this.message.stream, code, reason });
    this.release();
    this.finish();
  }
}

/** A resize message's size, or null when the message is keystrokes (anything else, `{` typed alone included). */
export function resizeOf(payload: Uint8Array): { cols: number; rows: number } | null {
  if (payload[0] !== 0x7b) return null;
  let message: unknown;
  try {
    message = JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    return null;
  }
  const { type, cols, rows } = (message ?? {}) as { type?: unknown; cols?: unknown; rows?: unknown };
  const valid = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= TERMINAL_MAX_SIZE;
  return type === "resize" && valid(cols) && valid(rows) ? { cols, rows } : null;
}
