// The FleetDO simulation: one FleetDO per fleet size, seeded with that many simulated machines, driven
// through its real RPC methods by closed-loop callers; prints calls per second of each operation.
// Rates, not assertions: run with `npm run bench:fleet` (not part of `npm test`).
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { it } from "vitest";
import { closedLoopRate, operation, seedFleet, type Operation } from "./fleet-load.ts";

const SIZES = [100, 1_000, 10_000];
const OPERATIONS: Operation[] = ["placement", "index_update", "list_gpus", "launch"];
const CONCURRENCY = 16;
const DURATION_MS = 3_000;

it("FleetDO: calls per second by fleet size", async () => {
  const rows: { machines: number; operation: Operation; per_second: number; calls: number }[] = [];
  for (const machines of SIZES) {
    const fleet = env.FLEET.getByName(`sim-${machines}`);
    await runInDurableObject(fleet, (_instance, state) => seedFleet(state, machines));
    for (const kind of OPERATIONS) {
      await operation(fleet, machines, kind, 0);
      const { perSecond, calls } = await closedLoopRate((n) => operation(fleet, machines, kind, n), CONCURRENCY, DURATION_MS);
      rows.push({ machines, operation: kind, per_second: Math.round(perSecond), calls });
      console.log(`fleet-sim ${machines} machines, ${kind}: ${Math.round(perSecond)}/s (${calls} in ${DURATION_MS} ms, ${CONCURRENCY} callers)`);
    }
  }
  console.log(`fleet-sim-json ${JSON.stringify(rows)}`);
});
