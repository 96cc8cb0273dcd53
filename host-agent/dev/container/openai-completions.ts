// OpenAI-compatible `/v1/chat/completions` and `/v1/completions`, streamed (SSE chunks ending in
// `data: [DONE]`) or not, with the deterministic tokens of fake-model.ts.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { chatPrompt, completionTokens, countTokens, DEFAULT_MAX_TOKENS, type ChatMessage } from "./fake-model.ts";
import { readJsonObject, sendJson, sendOpenAiError } from "./json-io.ts";

type CompletionKind = "chat" | "text";

export async function completeRequest(req: IncomingMessage, res: ServerResponse, kind: CompletionKind, servedModel: string): Promise<void> {
  const body = await readJsonObject(req);
  if (!body.ok) return sendOpenAiError(res, body.status, body.message);
  const request = body.value;
  const prompt = kind === "chat" ? chatRequestPrompt(request.messages) : textRequestPrompt(request.prompt);
  if (prompt === null) {
    return sendOpenAiError(res, 400, kind === "chat" ? "`messages` must be an array of messages" : "`prompt` must be a string or an array of strings");
  }
  const maxTokens = request.max_tokens ?? request.max_completion_tokens ?? DEFAULT_MAX_TOKENS;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 0) {
    return sendOpenAiError(res, 400, "`max_tokens` must be a non-negative integer");
  }
  const tokens = completionTokens(prompt, maxTokens);
  const meta = {
    id: `${kind === "chat" ? "chatcmpl" : "cmpl"}-${createHash("sha256").update(prompt).digest("hex").slice(0, 24)}`,
    created: Math.floor(Date.now() / 1000),
    model: typeof request.model === "string" ? request.model : servedModel,
  };
  const usage = { prompt_tokens: countTokens(prompt), completion_tokens: tokens.length, total_tokens: countTokens(prompt) + tokens.length };
  if (request.stream === true) {
    const includeUsage = (request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return streamCompletion(res, kind, meta, tokens, includeUsage ? usage : null);
  }
  const text = tokens.join("");
  const choice =
    kind === "chat"
      ? { index: 0, message: { role: "assistant", content: text }, logprobs: null, finish_reason: "length" }
      : { index: 0, text, logprobs: null, finish_reason: "length" };
  sendJson(res, 200, { ...meta, object: kind === "chat" ? "chat.completion" : "text_completion", choices: [choice], usage });
}

interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

function streamCompletion(res: ServerResponse, kind: CompletionKind, meta: CompletionMeta, tokens: string[], usage: Usage | null): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const object = kind === "chat" ? "chat.completion.chunk" : "text_completion";
  const send = (choices: unknown[], extra: object = {}) => res.write(`data: ${JSON.stringify({ ...meta, object, choices, ...extra })}\n\n`);
  const choice = (content: string | null, finishReason: string | null) =>
    kind === "chat"
      ? { index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finishReason }
      : { index: 0, text: content ?? "", logprobs: null, finish_reason: finishReason };
  if (kind === "chat") send([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]);
  for (const token of tokens) send([choice(token, null)]);
  send([choice(null, "length")]);
  if (usage) send([], { usage });
  res.end("data: [DONE]\n\n");
}

function chatRequestPrompt(messages: unknown): string | null {
  if (!Array.isArray(messages) || !messages.every(isChatMessage)) return null;
  return chatPrompt(messages);
}

function isChatMessage(value: unknown): value is ChatMessage {
  return typeof value === "object" && value !== null && typeof (value as { role?: unknown }).role === "string";
}

function textRequestPrompt(prompt: unknown): string | null {
  if (typeof prompt === "string") return prompt;
  if (Array.isArray(prompt) && prompt.every((p) => typeof p === "string")) return prompt.join("\n");
  return null;
}
