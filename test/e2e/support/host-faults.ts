// Faults put on a host of the local stack from outside its agent, for tests of how a failure on
// the host reaches the API and the CLI.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { E2eStack } from "./e2e-stack.ts";

/**
 * Runs `body` while the agent of `machine` cannot make a container's folder (a file stands where
 * the folder must go), so every instance created there fails; the folder is put back after.
 */
export async function withContainerFolderBlocked<T>(stack: E2eStack, machine: string, body: () => Promise<T>): Promise<T> {
  const containers = join(stack.stateDir, "agents", machine, "containers");
  mkdirSync(containers, { recursive: true });
  renameSync(containers, `${containers}.kept`);
  writeFileSync(containers, "not a folder");
  try {
    return await body();
  } finally {
    rmSync(containers);
    renameSync(`${containers}.kept`, containers);
  }
}
