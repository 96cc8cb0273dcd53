// GPU discovery on real machines: nvidia-smi's CSV query, parsed by a pure function.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { GpuInfo } from "../../protocol/messages.ts";
import { gpuModelId } from "./gpu-models.ts";

const QUERY = ["--query-gpu=index,name,uuid,memory.total", "--format=csv,noheader,nounits"];

export async function discoverNvidiaGpus(): Promise<GpuInfo[]> {
  try {
    const { stdout } = await promisify(execFile)("nvidia-smi", QUERY, { timeout: 30_000 });
    return parseNvidiaSmiCsv(stdout);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "nvidia-smi is not installed" : String(error);
    throw new Error(`GPU discovery failed: ${reason}`);
  }
}

/** Parses `index, name, uuid, memory.total` lines; a name may itself contain ", ". */
export function parseNvidiaSmiCsv(text: string): GpuInfo[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .map((line, lineIndex) => {
      const fields = line.split(",").map((field) => field.trim());
      const [index, uuid, memory] = [fields[0], fields.at(-2), fields.at(-1)];
      const name = fields.slice(1, -2).join(", ");
      if (fields.length < 4 || !/^\d+$/.test(index ?? "") || !/^\d+$/.test(memory ?? "") || !uuid || !name) {
        throw new Error(`nvidia-smi output line ${lineIndex + 1} is not "index, name, uuid, memory.total": ${line}`);
      }
      return { index: Number(index), model: gpuModelId(name), name, uuid, vram_mb: Number(memory) };
    });
}
