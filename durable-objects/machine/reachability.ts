// Whether an instance can be reached now: the one decision on the instance's state, for every way in
// (the path proxy, web apps' tickets, sessions and requests; next SSH and the terminal). The MachineDO
// hosting the instance makes it from what it alone holds: the container's desired and reported state,
// and whether the host is online. Who the caller is, and whether the instance is theirs, is judged
// before (proxy-admission.ts, app-sessions.ts, or the account on the slow path); never the state.
import { fail, type Failure } from "../../core/errors.ts";
import type { ContainerRow } from "./container-ledger.ts";

/** Null when the instance runs: meant to run, and its container reported running. */
export function runningRefusal(instanceId: string, container: ContainerRow | undefined): Failure | null {
  // Its account knows the instance but this host has no container for it: destroyed and removed.
  if (!container) return fail("not_running", `instance ${instanceId} is not running: its host has no container for it`);
  if (container.desired !== "running") return fail("not_running", `instance ${instanceId} is ${container.desired}, not running`);
  if (container.actual !== "running") return fail("not_running", `instance ${instanceId} is not running yet (its container is ${container.actual})`);
  return null;
}

/** Null when a request may reach the instance now: it runs and its host is online. */
export function reachRefusal(instanceId: string, container: ContainerRow | undefined, hostOnline: boolean): Failure | null {
  return runningRefusal(instanceId, container) ?? (hostOnline ? null : hostOffline(instanceId));
}

export const hostOffline = (instanceId: string): Failure => fail("upstream_unavailable", `the host of instance ${instanceId} is offline`);

/**
 * Null when an instance's files can be read or written now: its container exists (running or
 * stopped: a stopped instance keeps its data) and its host is online.
 */
export function filesRefusal(instanceId: string, container: ContainerRow | undefined, hostOnline: boolean): Failure | null {
  if (!container || container.desired === "destroyed") return fail("conflict", `instance ${instanceId} is destroyed: its files are gone`);
  if (container.actual !== "running" && container.actual !== "stopped") {
    return fail("conflict", `instance ${instanceId} has no container to read yet (it is ${container.actual})`);
  }
  return hostOnline ? null : hostOffline(instanceId);
}
