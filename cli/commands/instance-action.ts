// What stop, start and rm share: the API answers 204, so --json prints the instance as read after.
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";

const DONE = { stop: "Stopped", start: "Starting", destroy: "Destroyed" } as const;

export async function runAction(f: Factory, id: string, options: { json?: true }, action: keyof typeof DONE): Promise<void> {
  const api = await f.client();
  const params = { params: { path: { id } } };
  if (action === "destroy") await ok(api.DELETE("/v1/instances/{id}", params));
  else await ok(api.POST(action === "stop" ? "/v1/instances/{id}/stop" : "/v1/instances/{id}/start", params));
  if (options.json) return printJson(f.io, await ok(api.GET("/v1/instances/{id}", params)));
  if (f.io.isStdoutTty) f.io.out(`✓ ${DONE[action]} ${id}`);
}
