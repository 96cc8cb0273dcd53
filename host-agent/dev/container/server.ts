// Entry of the dev container server, the local runtime's stand-in for a model server container.
// Env: DEV_LISTEN (containerPort:hostPort,...), DEV_MODEL, DEV_READY_DELAY_MS, DEV_DATA_DIR, and
// DEV_LISTEN_HOST: 127.0.0.1 (a child of the local runtime, next to the agent) unless given; the
// container image built by scripts/ci/podman.sh listens on 0.0.0.0, its network's address.
import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { createDevServer } from "./dev-server.ts";
import { reportUsageToParent } from "./usage-report.ts";

const listen = parseListen(process.env.DEV_LISTEN ?? "");
const readyDelayMs = Number(process.env.DEV_READY_DELAY_MS ?? "3000");
if (listen === null || listen.length === 0 || !Number.isFinite(readyDelayMs) || readyDelayMs < 0) {
  process.stderr.write("dev container: DEV_LISTEN must be containerPort:hostPort[,...] and DEV_READY_DELAY_MS a number\n");
  process.exit(2);
}
if (process.env.DEV_DATA_DIR) mkdirSync(process.env.DEV_DATA_DIR, { recursive: true });

// Spawned with an IPC channel by the local runtime: the channel closes when the agent dies, even by
// SIGKILL, so a container never outlives its agent.
if (process.send) process.on("disconnect", () => process.exit(0));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));

const listenHost = process.env.DEV_LISTEN_HOST ?? "127.0.0.1";
const model = process.env.DEV_MODEL ?? "";
process.stdout.write(`dev container: loading ${model || "no model"}, ready in ${readyDelayMs} ms\n`);
process.stderr.write("dev container: no GPU here, answers come from a stand-in model\n");
const servers = listen.map(() => createDevServer(model));
reportUsageToParent(servers);
// Ports stay closed while the "model loads", so connections are refused exactly as with a real server.
await sleep(readyDelayMs);
await Promise.all(servers.map((server, i) => once(server.listen(listen[i]!.hostPort, listenHost), "listening")));
process.stdout.write(`dev container ready on ${listen.map((l) => `${l.containerPort}->${listenHost}:${l.hostPort}`).join(", ")}\n`);

function parseListen(text: string): { containerPort: number; hostPort: number }[] | null {
  const pairs = text.split(",").filter(Boolean).map((pair) => pair.split(":").map(Number));
  if (!pairs.every((p) => p.length === 2 && p.every((n) => Number.isInteger(n) && n > 0 && n < 65536))) return null;
  return pairs.map(([containerPort = 0, hostPort = 0]) => ({ containerPort, hostPort }));
}
