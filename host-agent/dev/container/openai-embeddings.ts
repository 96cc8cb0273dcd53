// OpenAI-compatible `POST /v1/embeddings`: deterministic unit vectors, as float arrays or as base64
// little-endian float32 (the `openai` SDK asks for base64 by default).
import type { IncomingMessage, ServerResponse } from "node:http";
import { countTokens, embeddingBase64, embeddingVector } from "./fake-model.ts";
import { readJsonObject, sendJson, sendOpenAiError } from "./json-io.ts";

export async function embedRequest(req: IncomingMessage, res: ServerResponse, servedModel: string): Promise<void> {
  const body = await readJsonObject(req);
  if (!body.ok) return sendOpenAiError(res, body.status, body.message);
  const { input, encoding_format: format = "float", model } = body.value;
  const texts = typeof input === "string" ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string")) {
    return sendOpenAiError(res, 400, "`input` must be a string or a non-empty array of strings");
  }
  if (format !== "float" && format !== "base64") {
    return sendOpenAiError(res, 400, "`encoding_format` must be \"float\" or \"base64\"");
  }
  const data = texts.map((text, index) => {
    const vector = embeddingVector(text);
    return { object: "embedding", index, embedding: format === "base64" ? embeddingBase64(vector) : vector };
  });
  const promptTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
  sendJson(res, 200, {
    object: "list",
    data,
    model: typeof model === "string" ? model : servedModel,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
}
