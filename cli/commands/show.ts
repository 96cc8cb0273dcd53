// `gpu show <id>`: one instance in full, with the proxy address of each port.
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { dollars, printJson, printTable } from "../format.ts";
import { proxyUrl, statusText } from "../instance-text.ts";
import { JSON_HELP } from "../options.ts";
import { instanceCommand } from "./instance-command.ts";

export function showCommand(f: Factory) {
  return instanceCommand("show", "Show an instance: status, GPUs, software, price, ports and their proxy addresses")
    .option("--json", JSON_HELP)
    .action(async (id, options) => {
      const api = await f.client();
      const instance = await ok(api.GET("/v1/instances/{id}", { params: { path: { id } } }));
      if (options.json) return printJson(f.io, instance);
      const { apiUrl } = await f.config();
      const env = Object.entries(instance.env).map(([name, value]) => `${name}=${value}`).join(" ");
      const rows: [string, string][] = [
        ["id", instance.id],
        ["label", instance.label],
        ["status", statusText(instance)],
        ["gpus", `${instance.gpu_count} × ${instance.gpu_model}`],
        ["template", instance.template],
        ["model", instance.model],
        ["image", instance.image],
        ["disk", `${instance.disk_gb} GB`],
        ...(instance.memory_gb !== null && instance.vcpus !== null ? [["memory and CPUs", `${instance.memory_gb} GB, ${instance.vcpus} vCPUs`] as [string, string]] : []),
        ["price", `${dollars(instance.price_hour_micros)}/hour`],
        ["machine", `${instance.machine_id} (${instance.machine_online ? "online" : "offline"})`],
        ["created", instance.created_at],
        ["started", instance.started_at ?? "-"],
        ["gpu util", instance.gpu_util_percent === null ? "-" : `${instance.gpu_util_percent}%`],
        ["idle stop", instance.idle_stop_minutes === null ? "never" : `after ${instance.idle_stop_minutes} min idle`],
        ["env", env || "-"],
        ...instance.volumes.map((v): [string, string] => [`volume ${v.path}`, `${v.volume_id}${v.read_only ? " (read-only)" : ""}`]),
        ...instance.ports.map((p): [string, string] => [`port ${p.port}`, `${p.name} (${p.api}) ${proxyUrl(apiUrl, instance, p.port)}`]),
      ];
      if (!f.io.isStdoutTty) return printTable(f.io, [], rows);
      const width = Math.max(...rows.map(([name]) => name.length));
      for (const [name, value] of rows) f.io.out(`${`${name}:`.padEnd(width + 2)}${value}`);
    });
}
