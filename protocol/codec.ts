// Decoding of control frames: a malformed or unknown frame yields a reason to log, never a throw.
import type { z } from "zod";
import { isFields, isHeaderList, isInt, type Fields } from "./json-shapes.ts";
import { agentMessage, serverMessage, WHOLE_RESPONSE_MAX_BYTES, type AgentMessage, type ServerMessage } from "./messages.ts";

export type Decoded<T> = { ok: true; message: T } | { ok: false; reason: string };

export function decodeAgentMessage(text: string): Decoded<AgentMessage> {
  return decodeWith(agentMessage, text, AGENT_FAST_PATHS);
}

export function decodeServerMessage(text: string): Decoded<ServerMessage> {
  return decodeWith(serverMessage, text, STREAM_FAST_PATHS);
}

export function encodeMessage(message: AgentMessage | ServerMessage): string {
  return JSON.stringify(message);
}

function decodeWith<T>(schema: z.ZodType<T>, text: string, fastPaths: FastPaths<T>): Decoded<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: `frame is not JSON: ${text.slice(0, 80)}` };
  }
  const fast = isFields(raw) ? fastPaths[raw.type as string]?.(raw) : undefined;
  if (fast !== undefined) return { ok: true, message: fast };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `frame rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}

/*
 * The data plane's control messages, checked by hand: a proxied request's response head and end and
 * every window pass here, and zod's safeParse of them was about a seventh of the MachineDO's CPU for a
 * small proxied request. Each accepts only what its schema in messages.ts accepts and returns what zod
 * would (unknown fields dropped), which codec.test.ts checks against the schemas; anything it does not
 * accept goes to zod, which accepts it or says what is wrong.
 */
type FastPaths<T> = Partial<Record<string, (raw: Fields) => T | undefined>>;

const isStreamId = (value: unknown): value is number => isInt(value) && value >= 1 && value <= 0xffffffff;

const WHOLE_BODY_MAX_CHARS = Math.ceil(WHOLE_RESPONSE_MAX_BYTES / 3) * 4;
const isWholeBody = (value: unknown): value is string | undefined => value === undefined || (typeof value === "string" && value.length <= WHOLE_BODY_MAX_CHARS);

const STREAM_FAST_PATHS: FastPaths<AgentMessage & ServerMessage> = {
  window: ({ stream, bytes }) => (isStreamId(stream) && isInt(bytes) && bytes >= 1 ? { type: "window", stream, bytes } : undefined),
  end: ({ stream }) => (isStreamId(stream) ? { type: "end", stream } : undefined),
  abort: ({ stream, reason }) => (isStreamId(stream) && typeof reason === "string" ? { type: "abort", stream, reason } : undefined),
};

const AGENT_FAST_PATHS: FastPaths<AgentMessage> = {
  ...STREAM_FAST_PATHS,
  http_response: ({ stream, status, headers, body }) =>
    isStreamId(stream) && isInt(status) && status >= 100 && status <= 599 && isHeaderList(headers) && isWholeBody(body)
      ? {
          type: "http_response", stream, status, headers: headers.map(([name, value]) => [name, value] as [string, string]),
          ...(body === undefined ? {} : { body }),
        }
      : undefined,
};
