// Decoding of control frames: a malformed or unknown frame yields a reason to log, never a throw.
import type { z } from "zod";
import { agentMessage, serverMessage, type AgentMessage, type ServerMessage } from "./messages.ts";

export type Decoded<T> = { ok: true; message: T } | { ok: false; reason: string };

export function decodeAgentMessage(text: string): Decoded<AgentMessage> {
  return decodeWith(agentMessage, text);
}

export function decodeServerMessage(text: string): Decoded<ServerMessage> {
  return decodeWith(serverMessage, text);
}

export function encodeMessage(message: AgentMessage | ServerMessage): string {
  return JSON.stringify(message);
}

function decodeWith<T>(schema: z.ZodType<T>, text: string): Decoded<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: `frame is not JSON: ${text.slice(0, 80)}` };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `frame rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}
