// Deterministic stand-in for a model: completions and embeddings are pure functions of the input,
// so tests (and the proxy's end-to-end tests) can compute the exact expected output.
import { createHash } from "node:crypto";

const WORDS = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
  "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa",
  "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
  "yankee", "zulu", "amber", "cobalt", "indigo", "saffron", "teal", "violet",
] as const;

export const EMBEDDING_DIMENSIONS = 16;
export const DEFAULT_MAX_TOKENS = 16;

/** The completion's tokens: words picked from a hash chain of the prompt; all but the first carry a leading space. */
export function completionTokens(prompt: string, maxTokens: number = DEFAULT_MAX_TOKENS): string[] {
  const tokens: string[] = [];
  let digest = createHash("sha256").update(prompt).digest();
  for (let k = 0; k < maxTokens; k++) {
    const word = WORDS[(digest[k % digest.length] ?? 0) % WORDS.length] ?? "alpha";
    tokens.push(k === 0 ? word : ` ${word}`);
    if (k % digest.length === digest.length - 1) digest = createHash("sha256").update(digest).digest();
  }
  return tokens;
}

export function completionText(prompt: string, maxTokens: number = DEFAULT_MAX_TOKENS): string {
  return completionTokens(prompt, maxTokens).join("");
}

export interface ChatMessage {
  role: string;
  content: unknown;
}

/** The prompt a chat request stands for: one `role: text` line per message. */
export function chatPrompt(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${m.role}: ${messageText(m.content)}`).join("\n");
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => (isTextPart(part) ? part.text : ""))
    .join("");
}

function isTextPart(part: unknown): part is { text: string } {
  return typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string";
}

/** A unit-length vector derived from the text's SHA-256. */
export function embeddingVector(text: string): number[] {
  const digest = createHash("sha256").update(text).digest();
  const raw = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => ((digest[i] ?? 0) - 127.5) / 127.5);
  const norm = Math.hypot(...raw);
  return raw.map((x) => Math.fround(x / norm));
}

/** Little-endian float32 bytes in base64, as OpenAI's `encoding_format: "base64"` returns them. */
export function embeddingBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString("base64");
}

/** Rough token count for `usage`: whitespace-separated words. */
export function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
