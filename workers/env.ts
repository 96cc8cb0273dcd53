// Bindings and vars of the Worker (see wrangler.toml).
import type { AccountDO } from "../durable-objects/account/account-do.ts";
import type { FleetDO } from "../durable-objects/fleet/fleet-do.ts";
import type { MachineDO } from "../durable-objects/machine/machine-do.ts";

export interface Env {
  ACCOUNTS: DurableObjectNamespace<AccountDO>;
  FLEET: DurableObjectNamespace<FleetDO>;
  MACHINES: DurableObjectNamespace<MachineDO>;
  ADMIN_TOKEN?: string;
  RATE_LIMIT_RPS?: string;
  HEARTBEAT_TIMEOUT_MS?: string;
}

export const fleetOf = (env: Env) => env.FLEET.getByName("fleet");
export const accountOf = (env: Env, accountId: string) => env.ACCOUNTS.getByName(accountId);
export const machineOf = (env: Env, machineId: number) => env.MACHINES.getByName(String(machineId));
