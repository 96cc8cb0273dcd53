// Doctor's GPU checks, pure functions of nvidia-smi's outputs: the tool and the driver, the GPUs and
// their priced models, and the CUDA version the driver supports.
import { failureText, type CommandResult } from "../host-command.ts";
import { parseCudaVersion, parseDriverVersion, parseNvidiaSmiCsv } from "../gpus/nvidia-smi.ts";
import { fail, ok, warn, type CheckResult } from "./check.ts";

const INSTALL_DRIVER = "install the NVIDIA datacenter driver (e.g. apt install nvidia-driver-550-server) and reboot";

/** From `nvidia-smi --query-gpu=driver_version --format=csv,noheader`. */
export function checkDriver(driverQuery: CommandResult): CheckResult {
  if (!driverQuery.ok) {
    if (driverQuery.missing) return fail("nvidia driver", "nvidia-smi is not installed", INSTALL_DRIVER);
    if (/couldn't communicate with the NVIDIA driver/i.test(driverQuery.output)) {
      return fail("nvidia driver", "nvidia-smi cannot talk to the driver (it is not loaded)", "reboot after installing the driver; if it persists, reinstall it for the running kernel (dkms status, dmesg | grep -i nvidia)");
    }
    return fail("nvidia driver", `nvidia-smi failed (${failureText(driverQuery)})`, "run nvidia-smi by hand and fix what it reports");
  }
  const version = parseDriverVersion(driverQuery.stdout);
  if (!version) return fail("nvidia driver", `nvidia-smi printed no driver version: ${driverQuery.stdout.trim().slice(0, 80)}`, "run nvidia-smi by hand and fix what it reports");
  return ok("nvidia driver", `driver ${version}`);
}

/** From `nvidia-smi --query-gpu=index,name,uuid,memory.total --format=csv,noheader,nounits`. */
export function checkGpus(gpuQuery: CommandResult): CheckResult {
  if (!gpuQuery.ok) return fail("gpus", "nvidia-smi could not list the GPUs", "fix the nvidia driver check first");
  let gpus;
  try {
    gpus = parseNvidiaSmiCsv(gpuQuery.stdout);
  } catch (error) {
    return fail("gpus", (error as Error).message, "run nvidia-smi by hand and fix what it reports");
  }
  if (gpus.length === 0) return fail("gpus", "nvidia-smi lists no GPU", "check that the GPUs are seated and visible (lspci | grep -i nvidia)");
  const counts = new Map<string, number>();
  for (const gpu of gpus) {
    const label = `${gpu.name} (${gpu.model || "unknown"})`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const detail = [...counts].map(([label, count]) => `${count} × ${label}`).join(", ");
  const unknown = [...new Set(gpus.filter((gpu) => gpu.model === "").map((gpu) => gpu.name))];
  if (unknown.length > 0) {
    return warn("gpus", `${detail}: ${unknown.join(", ")} not in the price table, never offered`, "use a supported GPU, or add its nvidia-smi name to host-agent/gpus/gpu-models.ts and price it with PUT /admin/v1/gpu-models/{model}");
  }
  return ok("gpus", detail);
}

/** From the plain `nvidia-smi` banner. */
export function checkCuda(banner: CommandResult): CheckResult {
  if (!banner.ok) return fail("cuda", "nvidia-smi failed, so the CUDA version is unknown", "fix the nvidia driver check first");
  const version = parseCudaVersion(banner.stdout);
  if (!version) return fail("cuda", "the nvidia-smi banner shows no CUDA version (driver too old)", "install a driver that supports CUDA 12.8 or newer (R570+); no template is placed on this host until then");
  return ok("cuda", `CUDA ${version} (templates needing a newer CUDA are not placed here)`);
}
