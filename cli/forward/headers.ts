// Header rules of the local forwarder. Towards the service: the key goes in Authorization, and the
// local tool's own Authorization moves to X-Upstream-Authorization, which the proxy hands to the
// server inside as Authorization. Hop-by-hop headers stay on their hop, both ways (standards/hop-by-hop.ts).
import { hopByHopIn } from "../../standards/hop-by-hop.ts";

/** Raw header pairs [name, value, name, value, ...] as node:http gives and takes them. */
export type RawHeaders = string[];

/** `Expect: 100-continue` was answered on the local hop already (node:http does it). */
const LOCAL_ONLY = new Set(["host", "expect"]);

export function towardsService(raw: RawHeaders, apiKey: string, upgrade: string | null): RawHeaders {
  const dropped = droppedBy(raw);
  const hasUpstreamAuth = pairs(raw).some(([name]) => name.toLowerCase() === "x-upstream-authorization");
  const out: RawHeaders = [];
  for (const [name, value] of pairs(raw)) {
    const lower = name.toLowerCase();
    if (LOCAL_ONLY.has(lower) || dropped(lower)) continue;
    if (lower === "authorization") {
      if (!hasUpstreamAuth) out.push("x-upstream-authorization", value);
      continue;
    }
    out.push(name, value);
  }
  out.push("authorization", `Bearer ${apiKey}`);
  if (upgrade !== null) out.push("connection", "Upgrade", "upgrade", upgrade);
  return out;
}

export function towardsClient(raw: RawHeaders): RawHeaders {
  const dropped = droppedBy(raw);
  return pairs(raw).flatMap(([name, value]) => (dropped(name) ? [] : [name, value]));
}

export function withoutHeader(raw: RawHeaders, name: string): RawHeaders {
  return pairs(raw).flatMap(([key, value]) => (key.toLowerCase() === name ? [] : [key, value]));
}

/** Whether a header of these stays on its hop: a hop-by-hop one, or one their Connection headers name. */
function droppedBy(raw: RawHeaders): (name: string) => boolean {
  return hopByHopIn(pairs(raw).filter(([name]) => name.toLowerCase() === "connection").map(([, value]) => value));
}

function pairs(raw: RawHeaders): [string, string][] {
  const result: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) result.push([raw[i]!, raw[i + 1]!]);
  return result;
}
