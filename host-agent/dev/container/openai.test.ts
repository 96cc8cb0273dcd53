// The dev container's OpenAI-compatible API through the real `openai` SDK, with deterministic output.
// The expected texts are written out here, not asked of the stand-in's own functions, so a change in
// what it answers shows.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServerChild, type DevServerChild } from "../../../test/support/agent/dev-server-child.ts";

const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
let server: DevServerChild;
let client: OpenAI;
let base: string;

beforeAll(async () => {
  server = await startDevServerChild([8000], { DEV_MODEL: MODEL });
  base = `http://127.0.0.1:${server.ports[0]}/v1`;
  client = new OpenAI({ baseURL: base, apiKey: "x" });
});
afterAll(() => server.stop());

describe("dev container OpenAI API", () => {
  it("lists the served model", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([{ id: MODEL, object: "model", created: expect.any(Number), owned_by: "dev" }]);
  });

  it("streams chat completion tokens that add up to the deterministic text", async () => {
    const messages = [{ role: "user" as const, content: "Say hi" }];
    const stream = await client.chat.completions.create({ model: MODEL, messages, max_tokens: 5, stream: true });
    const deltas: string[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      deltas.push(chunk.choices[0]?.delta.content ?? "");
    }
    expect(deltas.join("")).toBe("teal saffron saffron papa cobalt");
    expect(deltas.filter(Boolean)).toHaveLength(5);
  });

  it("answers a non-streamed chat completion with usage", async () => {
    const messages = [{ role: "system" as const, content: "be brief" }, { role: "user" as const, content: "count" }];
    const completion = await client.chat.completions.create({ model: MODEL, messages });
    expect(completion.choices[0]?.message.content).toBe("violet papa violet tango amber teal whiskey delta sierra cobalt echo papa victor violet hotel delta");
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 16, total_tokens: 21 });
  });

  it("serves text completions, streamed and not", async () => {
    const plain = await client.completions.create({ model: MODEL, prompt: "once upon", max_tokens: 3 });
    expect(plain.choices[0]?.text).toBe("india tango sierra");
    const stream = await client.completions.create({ model: MODEL, prompt: "once upon", max_tokens: 3, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    expect(text).toBe("india tango sierra");
  });

  it("returns deterministic unit embeddings, base64 (the SDK default) and float", async () => {
    const viaSdk = await client.embeddings.create({ model: MODEL, input: ["a", "b"] });
    const [a, b] = viaSdk.data.map((d) => d.embedding);
    expect(a).toHaveLength(16);
    expect(a!.slice(0, 3)).toEqual([0.24603945016860962, 0.07760976254940033, 0.004953814670443535]);
    expect(b).not.toEqual(a);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    const res = await fetch(`${base}/embeddings`, { method: "POST", body: JSON.stringify({ input: "a", encoding_format: "float" }) });
    const body = (await res.json()) as { data: { embedding: number[] }[] };
    expect(body.data[0]?.embedding).toEqual(a);
  });

  it("rejects a body that is not JSON with 400 and an OpenAI-style error", async () => {
    const res = await fetch(`${base}/chat/completions`, { method: "POST", body: "{nope" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.objectContaining({ message: "request body is not valid JSON" }) });
  });
});
