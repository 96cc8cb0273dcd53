// The dev Worker's MachineDO: the production object, plus how many proxied and log streams it has open,
// which the bench's soak mode checks is 0 at its end (/bench/open-streams) and tests read. Asked through
// fetch on a path of its own rather than by an RPC method: the generated Env types every MachineDO stub
// from the top level's entry (this Worker's), and a method here would type-check in production code.
import { MachineDO } from "../../durable-objects/machine/machine-do.ts";
import { machineOf, type Env } from "../../core/env.ts";

const OPEN_STREAMS_PATH = "/dev/open-streams";

export class DevMachineDO extends MachineDO {
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === OPEN_STREAMS_PATH) return Response.json({ open_streams: this.bridge.openStreams });
    return super.fetch(request);
  }
}

/** How many streams machine `machineId`'s object has open, each a client being answered. */
export async function openStreamsOf(env: Env, machineId: number): Promise<number> {
  const response = await machineOf(env, machineId).fetch(`https://machine${OPEN_STREAMS_PATH}`);
  return ((await response.json()) as { open_streams: number }).open_streams;
}
