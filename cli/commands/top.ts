// `gpu top`: a live table of the running instances, their GPUs' utilisation and memory, CPU and
// price, redrawn every few seconds on a terminal until interrupted (or -n times); once in a pipe.
import { Command } from "@commander-js/extra-typings";
import { ok, type GpuClient, type Instance, type InstanceMetrics } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson, printTable } from "../format.ts";
import { latestGpuMemory, latestGpuUtil } from "../metrics-text.ts";
import { integer } from "../options.ts";
import { interrupted, sleep } from "../sleep.ts";

const CLEAR_SCREEN = "\x1b[H\x1b[2J";
const HEADER = ["ID", "LABEL", "GPUS", "GPU UTIL", "GPU MEMORY", "CPU", "MEMORY", "PER HOUR"];

interface Row {
  instance: Instance;
  metrics: InstanceMetrics;
}

async function readRows(api: GpuClient): Promise<Row[]> {
  const running = (await ok(api.GET("/v1/instances"))).items.filter((instance) => instance.status === "running");
  return Promise.all(running.map(async (instance) => ({
    instance,
    metrics: await ok(api.GET("/v1/instances/{id}/metrics", { params: { path: { id: instance.id }, query: { window: "1h" } } })),
  })));
}

const cells = ({ instance, metrics }: Row): string[] => {
  const util = latestGpuUtil(metrics);
  const cpu = metrics.container.at(-1)?.cpu_percent ?? null;
  const memory = metrics.container.at(-1)?.memory_used_mib ?? null;
  return [
    instance.id, instance.label, `${instance.gpu_count} × ${instance.gpu_model}`, util === null ? "-" : `${util}%`, latestGpuMemory(metrics) ?? "-",
    cpu === null ? "-" : `${cpu}%`, memory === null ? "-" : `${Math.round((memory / 1024) * 10) / 10} GiB`, dollars(instance.price_hour_micros),
  ];
};

export function topCommand(f: Factory) {
  return new Command("top")
    .description("Show your running instances' GPU utilisation and memory, CPU, memory and price, refreshed live on a terminal")
    .option("-d, --delay <seconds>", "seconds between refreshes on a terminal", integer, 10)
    .option("-n, --iterations <count>", "refresh this many times, then exit (default: until Ctrl-C)", integer)
    .option("--json", "print {items: [{instance, metrics}]}: each running instance and its last hour as the API sent them, once")
    .action(async (options) => {
      const api = await f.client();
      if (options.json) return printJson(f.io, { items: await readRows(api) });
      if (!f.io.isStdoutTty) return printTable(f.io, HEADER, (await readRows(api)).map(cells));
      const stop = interrupted();
      for (let drawn = 0; options.iterations === undefined || drawn < options.iterations; drawn++) {
        if (drawn > 0 && !(await sleep(Math.max(1, options.delay) * 1000, stop))) return;
        const rows = await readRows(api);
        f.io.stdout.write(CLEAR_SCREEN);
        if (rows.length === 0) f.io.out("No running instances.");
        else printTable(f.io, HEADER, rows.map(cells));
        const total = rows.reduce((sum, { instance }) => sum + instance.price_hour_micros, 0);
        f.io.out(`\n${rows.length} running, ${dollars(total)}/hour · ${new Date().toLocaleTimeString()} · every ${options.delay} s · Ctrl-C to quit`);
      }
    });
}
