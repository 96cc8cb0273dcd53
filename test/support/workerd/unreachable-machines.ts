// MachineDOs that cannot be reached, for the tests of what their callers do then (a revocation that
// must wait for every host, a request that must be refused). The method is replaced on the class, so
// every MachineDO of the isolate throws, not only the one reached through `machineId`.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";

/** Makes every MachineDO's applyDirectives throw until the returned function is called. */
export async function machinesUnreachable(machineId: number): Promise<() => void> {
  let restore = () => {};
  await runInDurableObject(env.MACHINES.getByName(String(machineId)), (instance) => {
    const prototype = Object.getPrototypeOf(instance) as { applyDirectives: (...args: unknown[]) => unknown };
    const applyDirectives = prototype.applyDirectives;
    prototype.applyDirectives = () => {
      throw new Error("the machine's object is unreachable");
    };
    restore = () => {
      prototype.applyDirectives = applyDirectives;
    };
  });
  return restore;
}
