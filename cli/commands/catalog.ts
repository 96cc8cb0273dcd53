// `gpu catalog`: the templates that can be launched and the models they serve.
import { ok } from "../../client/index.ts";
import type { Factory } from "../factory.ts";
import { printTable } from "../format.ts";
import { readCommand } from "./read-command.ts";

export function catalogCommand(f: Factory) {
  return readCommand(
    f, "catalog", "List the templates (software stacks) and the models they serve; `cached` models start faster",
    (api) => ok(api.GET("/v1/catalog")),
    (catalog) => {
      if (f.io.isStdoutTty) f.io.out("Templates");
      printTable(
        f.io,
        ["TEMPLATE", "NAME", "PORTS", "MODEL", "MIN VRAM"],
        catalog.templates.map((t) => [
          t.id, t.name, t.ports.map((p) => `${p.port}/${p.api}`).join(" ") || "-",
          t.model_required ? "required" : t.model_kinds.length > 0 ? "optional" : "-", `${t.min_vram_gb} GB`,
        ]),
      );
      if (f.io.isStdoutTty) f.io.out("\nModels");
      printTable(
        f.io,
        ["MODEL", "KIND", "PARAMS", "MIN VRAM", "CACHED", "HUGGING FACE ID"],
        catalog.models.map((m) => [m.id, m.kind, m.params, `${m.min_vram_gb} GB`, m.cached ? "yes" : "no", m.hf]),
      );
    },
  );
}
