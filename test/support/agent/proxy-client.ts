// Drives proxied HTTP requests through a FakeMachineDo the way the MachineDO does, for agent tests.
import { DataKind, MAX_DATA_FRAME_BYTES } from "../../../protocol/mux/frames.ts";
import type { AgentMessage } from "../../../protocol/messages.ts";
import type { FakeMachineDo } from "./fake-machine-do.ts";
import { waitUntil } from "./wait-until.ts";

export interface ProxiedResponse {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

export function sendHttpRequest(
  fake: FakeMachineDo,
  stream: number,
  instanceId: string,
  path: string,
  options: { method?: string; headers?: [string, string][]; body?: Buffer; port?: number } = {},
): void {
  const { method = "GET", headers = [], body, port = 8000 } = options;
  fake.send({ type: "http_request", stream, instance_id: instanceId, port, method, path, headers, has_body: body !== undefined });
  if (!body) return;
  for (let offset = 0; offset < body.byteLength; offset += MAX_DATA_FRAME_BYTES) {
    fake.sendData(DataKind.body, stream, body.subarray(offset, offset + MAX_DATA_FRAME_BYTES));
  }
  fake.send({ type: "end", stream });
}

/** The stream's outcome: its response once `end` arrived, or the abort reason. */
export async function streamOutcome(fake: FakeMachineDo, stream: number): Promise<ProxiedResponse | { abort: string }> {
  const last = await waitUntil(() => fake.streamMessages(stream).find((m) => m.type === "end" || m.type === "abort"), `end of stream ${stream}`);
  if (last.type === "abort") return { abort: last.reason };
  const head = fake.streamMessages(stream).find((m): m is Extract<AgentMessage, { type: "http_response" }> => m.type === "http_response");
  if (!head) throw new Error(`stream ${stream} ended without a response head`);
  return { status: head.status, headers: head.headers, body: fake.streamBytes(stream) };
}
