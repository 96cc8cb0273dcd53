// What nvidia-smi says about a real host: its GPUs (CSV query), the driver version (CSV query) and the
// newest CUDA version the driver supports (only printed in the plain `nvidia-smi` banner), each
// parsed by a pure function of the tool's output.
import type { GpuInfo } from "../../protocol/messages.ts";
import { failureText, type RunCommand } from "../host-command.ts";
import { gpuModelId } from "./gpu-models.ts";

export const GPU_QUERY = ["--query-gpu=index,name,uuid,memory.total", "--format=csv,noheader,nounits"] as const;
export const DRIVER_QUERY = ["--query-gpu=driver_version", "--format=csv,noheader"] as const;

export interface NvidiaHost {
  gpus: GpuInfo[];
  /** "" when nvidia-smi did not say. */
  driverVersion: string;
  cudaVersion: string;
  /**
   * Whether the GPUs are devices a container can be given (the NVIDIA container runtime's device
   * requests): true for nvidia-smi's; false for the dev agent's synthetic ones, which no engine has.
   */
  realDevices: boolean;
}

/** GPUs are required (the agent has nothing to offer without them); the versions are reported as "" when unreadable. */
export async function discoverNvidiaHost(run: RunCommand): Promise<NvidiaHost> {
  const listed = await run("nvidia-smi", GPU_QUERY);
  if (!listed.ok) {
    throw new Error(`GPU discovery failed: ${listed.missing ? "nvidia-smi is not installed" : failureText(listed)}`);
  }
  const [driver, banner] = await Promise.all([run("nvidia-smi", DRIVER_QUERY), run("nvidia-smi", [])]);
  return {
    gpus: parseNvidiaSmiCsv(listed.stdout),
    driverVersion: (driver.ok && parseDriverVersion(driver.stdout)) || "",
    cudaVersion: (banner.ok && parseCudaVersion(banner.stdout)) || "",
    realDevices: true,
  };
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

/** The driver version from `--query-gpu=driver_version` (one line per GPU, all alike), or null. */
export function parseDriverVersion(text: string): string | null {
  const first = text.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== "");
  return first && /^\d+(\.\d+)+$/.test(first) ? first : null;
}

/**
 * The CUDA version from the banner: `CUDA Version: 12.4` (drivers up to R580) or
 * `CUDA UMD Version: 13.3` (R610 and later), or null when the banner has neither.
 */
export function parseCudaVersion(banner: string): string | null {
  return /CUDA (?:UMD )?Version:\s*(\d+\.\d+)/.exec(banner)?.[1] ?? null;
}
