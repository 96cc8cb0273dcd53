// Declares this Worker's bindings and main module to the `cloudflare:workers` types (`env`, `exports`).
declare namespace Cloudflare {
  interface Env {
    ACCOUNTS: DurableObjectNamespace<import("../durable-objects/account/account-do.ts").AccountDO>;
    FLEET: DurableObjectNamespace<import("../durable-objects/fleet/fleet-do.ts").FleetDO>;
    MACHINES: DurableObjectNamespace<import("../durable-objects/machine/machine-do.ts").MachineDO>;
    ADMIN_TOKEN?: string;
    RATE_LIMIT_RPS?: string;
    HEARTBEAT_TIMEOUT_MS?: string;
    /** "1" enables the benchmark baseline routes (workers/bench). Never set in production. */
    BENCH_ROUTES?: string;
  }
  interface GlobalProps {
    mainModule: typeof import("./main.ts");
  }
}
