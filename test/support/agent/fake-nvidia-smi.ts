// A stand-in for nvidia-smi on a machine without a GPU: a script answering the agent's calls, for
// tests of the production agent, which discovers and samples its GPUs with nvidia-smi only. The
// banner (8 x H100 SXM, driver 550.54.15, CUDA 12.4) and the usage sample (an H100 under load, once
// per GPU) were recorded on real hosts; the GPU list, 8x-h100.csv, is hand-made with made-up UUIDs
// (host-agent/gpus/fixtures/SOURCES.md).
import { readFileSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GPU_METRICS_FIELDS } from "../../../host-agent/gpus/gpu-metrics-csv.ts";
import { DRIVER_QUERY, GPU_QUERY } from "../../../host-agent/gpus/nvidia-smi.ts";
import { projectNoUnits, recordedTable } from "./recorded-nvidia-smi.ts";

const fixture = (name: string) => readFileSync(new URL(`../../../host-agent/gpus/fixtures/${name}`, import.meta.url), "utf8");

/** What the host the script stands for reports. */
export const FAKE_HOST = { gpus: 8, name: "NVIDIA H100 80GB HBM3", model: "h100-80gb", driver: "550.54.15", cuda: "12.4" };

/** Writes `dir`/nvidia-smi; put `dir` first on the agent's PATH. */
export async function writeFakeNvidiaSmi(dir: string): Promise<void> {
  const heredoc = (text: string) => `cat <<'OUTPUT'\n${text.replace(/\n$/, "")}\nOUTPUT\n    ;;`;
  const [busy = ""] = projectNoUnits(recordedTable("metrics-h100-80gb-hbm3-load.csv"), GPU_METRICS_FIELDS);
  const sample = Array.from({ length: FAKE_HOST.gpus }, (_, index) => busy.replace(/^\d+/, String(index))).join("\n");
  const script = [
    "#!/bin/sh",
    'case "$*" in',
    `  "${GPU_QUERY.join(" ")}")\n${heredoc(fixture("8x-h100.csv"))}`,
    `  "${DRIVER_QUERY.join(" ")}")\n${heredoc(`${FAKE_HOST.driver}\n`.repeat(FAKE_HOST.gpus))}`,
    `  "")\n${heredoc(fixture("banner-h100-driver-550.txt"))}`,
    // The usage sampler's long-lived query: a sample now and then every interval, until killed.
    `  "--query-gpu=${GPU_METRICS_FIELDS.join(",")} --format=csv,noheader,nounits -lms "*)\n    while :; do\n    cat <<'OUTPUT'\n${sample}\nOUTPUT\n    sleep 1\n    done\n    ;;`,
    '  *) echo "fake nvidia-smi: unexpected arguments: $*" >&2; exit 2 ;;',
    "esac",
    "",
  ].join("\n");
  await writeFile(join(dir, "nvidia-smi"), script);
  await chmod(join(dir, "nvidia-smi"), 0o755);
}
