// The machine's tenant firewall (nftables table inet gpu_rental) is one for every test process on
// it, from any checkout: tests that take it away (doctor's failure cases) and tests that need it
// whole (rule counters, a real agent's check) hold this lock, machine-wide, for as long as they do.
// A lock whose holder died is taken over.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitUntil } from "./wait-until.ts";

const LOCK_DIR = "/run/gpu-rental-firewall-tests.lock";
const HOLDER = join(LOCK_DIR, "pid");

export async function lockFirewall(timeoutMs = 150_000): Promise<() => Promise<void>> {
  await waitUntil(async () => ((await tryLock()) ? true : undefined), "the firewall test lock", timeoutMs);
  return () => rm(LOCK_DIR, { recursive: true, force: true });
}

async function tryLock(): Promise<boolean> {
  try {
    await mkdir(LOCK_DIR);
  } catch {
    const holder = Number(await readFile(HOLDER, "utf8").catch(() => "0"));
    // No pid yet: its holder is writing it. A pid no longer alive: its holder died holding it.
    if (holder > 0 && !alive(holder)) await rm(LOCK_DIR, { recursive: true, force: true });
    return false;
  }
  await writeFile(HOLDER, String(process.pid));
  return true;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
