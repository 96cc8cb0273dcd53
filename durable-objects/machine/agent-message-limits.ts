// What one agent may send its MachineDO. A compromised host can only misreport its own machine, and
// these caps keep even that from costing anyone else much: its texts (container messages, which
// become instances' events and status messages; the degraded reason; command errors) are cut to
// MAX_TEXT_CHARS, its lists of models and GPUs to MAX_LIST_ITEMS, and its event messages (everything
// but heartbeats and proxied-stream frames, which flow control bounds) to MAX_EVENTS per
// EVENT_WINDOW_MS per connection. One more closes the connection (4008): the agent reconnects with
// backoff and says hello with its whole state, so an honest agent loses nothing, and a flooding one
// is held to a hello per reconnect.
import type { AgentMessage } from "../../protocol/index.ts";

export const MAX_TEXT_CHARS = 1_000;
export const MAX_LIST_ITEMS = 1_000;
export const MAX_EVENTS = 200;
export const EVENT_WINDOW_MS = 10_000;
export const TOO_MANY_EVENTS_CLOSE_CODE = 4008;

/** Frames about streams the MachineDO opened (`ssh_key_used` counts once per SSH stream): bounded by those streams, not counted. */
const STREAM_TYPES = new Set(["http_response", "ws_accepted", "window", "end", "abort", "ws_close", "ssh_key_used"]);

/** Counts one connection's event messages in fixed windows; in memory (a hibernated object starts a new window). */
export class AgentEventRate {
  private connection = "";
  private windowStartMs = 0;
  private count = 0;

  /** False when `message` is one event too many for its connection's window. */
  admit(connection: string, message: AgentMessage, nowMs: number): boolean {
    if (message.type === "heartbeat" || message.type === "hello" || STREAM_TYPES.has(message.type)) return true;
    if (connection !== this.connection || nowMs - this.windowStartMs >= EVENT_WINDOW_MS) {
      this.connection = connection;
      this.windowStartMs = nowMs;
      this.count = 0;
    }
    this.count++;
    return this.count <= MAX_EVENTS;
  }
}

/** The message with every text and list cut to the caps. */
export function capAgentMessage(message: AgentMessage): AgentMessage {
  switch (message.type) {
    case "hello":
      return {
        ...message,
        gpus: message.gpus.slice(0, MAX_LIST_ITEMS).map((gpu) => ({ ...gpu, name: capText(gpu.name), model: capText(gpu.model) })),
        containers: message.containers.slice(0, MAX_LIST_ITEMS).map((c) => ({ ...c, message: capText(c.message) })),
        cached_models: capList(message.cached_models),
        ...(message.degraded === undefined ? {} : { degraded: capText(message.degraded) }),
      };
    case "container":
      return { ...message, message: capText(message.message) };
    case "cache":
      return { ...message, models: capList(message.models) };
    case "health":
      return { ...message, degraded: capText(message.degraded) };
    case "ack":
      return { ...message, error: capText(message.error) };
    default:
      return message;
  }
}

/** Cut to MAX_TEXT_CHARS, ending in "…" when cut. */
export function capText(text: string): string {
  return text.length <= MAX_TEXT_CHARS ? text : `${text.slice(0, MAX_TEXT_CHARS - 1)}…`;
}

function capList(items: string[]): string[] {
  return items.slice(0, MAX_LIST_ITEMS).map(capText);
}
