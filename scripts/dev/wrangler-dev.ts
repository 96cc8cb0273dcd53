// `wrangler dev` as every local stack runs it: the project's Node, its own port and state folder, a
// devtools port of its own, and none of wrangler's own per-invocation work that no deployment does.
// The service's stack (stack.ts) and the bench's floor (bench/floor/floor-stack.ts) start it alike.
import { join, resolve } from "node:path";
import { freeLatePort } from "../../host-agent/dev/free-port.ts";
import { PROJECT_NODE, startChild, type Child } from "./processes.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export interface WranglerDevOptions {
  /** The wrangler.toml, from the repository's root. */
  config: string;
  port: number;
  stateDir: string;
  /** wrangler's --log-level: "warn" shows the Worker's warn and error lines, "log" its info lines too. */
  logLevel: "warn" | "log";
  vars?: Record<string, string>;
  /** Added to this process's environment (the config's required secrets). */
  env?: Record<string, string>;
  echo?: boolean;
}

export async function startWranglerDev(name: string, options: WranglerDevOptions): Promise<Child> {
  return startChild(
    name,
    PROJECT_NODE,
    [
      join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "dev", "--config", join(ROOT, options.config),
      "--ip", "127.0.0.1", "--port", String(options.port), "--persist-to", options.stateDir,
      "--show-interactive-dev-session=false", "--log-level", options.logLevel,
      // wrangler's devtools port otherwise starts at 9229 for every stack: two starting at once collide.
      // wrangler binds it seconds later, so it is one no outbound connection takes meanwhile.
      "--inspector-port", String(await freeLatePort(new Set([options.port]))),
      ...Object.entries(options.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    {
      // wrangler dev's local observability traces every invocation (each agent frame the MachineDO
      // takes is one) into SQLite on the Worker's own thread: a third of its CPU per proxied request
      // and nearly half per MB (docs/benchmarks.md), work no deployed object's thread does. On with
      // X_LOCAL_OBSERVABILITY=true.
      X_LOCAL_OBSERVABILITY: "false",
      ...process.env, ...options.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1",
    },
    options.echo ?? false,
  );
}
