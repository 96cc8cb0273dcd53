// Bindings and vars of the Worker (wrangler.toml), declared once in cloudflare-env.d.ts.
export type Env = Cloudflare.Env;

export const fleetOf = (env: Env) => env.FLEET.getByName("fleet");
export const accountOf = (env: Env, accountId: string) => env.ACCOUNTS.getByName(accountId);
export const machineOf = (env: Env, machineId: number) => env.MACHINES.getByName(String(machineId));
