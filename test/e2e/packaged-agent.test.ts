// The packaged agent (npm run build:agent) copied to a folder outside the repo, where no
// node_modules can be reached, answers --help and --version and joins a real `wrangler dev` stack.
import { execFile } from "node:child_process";
import { chmod, copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "../../host-agent/config.ts";
import { buildAgent, DIST } from "../../scripts/build-agent.ts";
import { startChild, type Child } from "../../scripts/dev/processes.ts";
import { poll, startE2eStack, type E2eStack } from "./support/e2e-stack.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

let stack: E2eStack;
let dir: string;
let agent: Child | undefined;

beforeAll(async () => {
  await buildAgent();
  dir = await mkdtemp(join(tmpdir(), "packaged-agent-"));
  for (const file of ["agent.mjs", "node"]) await copyFile(join(DIST, file), join(dir, file));
  await chmod(join(dir, "node"), 0o755);
  stack = await startE2eStack();
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The environment of a bare host: no NODE_PATH or NODE_OPTIONS pointing back into the repo. */
const bareEnv = () => ({ PATH: "/usr/bin:/bin", HOME: dir });

describe("the packaged agent", () => {
  it("runs from outside the repo with nothing to import from: --help and --version", async () => {
    expect(dir.startsWith(ROOT)).toBe(false);
    for (const dependency of ["dockerode", "ws", "zod"]) {
      await expect(run(join(dir, "node"), ["-e", `require.resolve(${JSON.stringify(dependency)})`], { cwd: dir, env: bareEnv() })).rejects.toMatchObject({
        stderr: expect.stringContaining("Cannot find module"),
      });
    }
    const help = await run(join(dir, "node"), [join(dir, "agent.mjs"), "--help"], { cwd: dir, env: bareEnv() });
    expect(help).toEqual({ stdout: USAGE, stderr: "" });
    const version = await run(join(dir, "node"), [join(dir, "agent.mjs"), "--version"], { cwd: dir, env: bareEnv() });
    expect(version.stdout).toBe("0.1.0\n");
  });

  it("connects to the real stack and reports its GPUs, agent, driver and CUDA versions", async () => {
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.baseUrl}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const machine = (await admin("POST", "/machines", { name: "packaged" })) as { id: number; agent_token: string };
    agent = startChild(
      "packaged-agent",
      join(dir, "node"),
      [join(dir, "agent.mjs"), "--server", stack.baseUrl, "--token", machine.agent_token, "--runtime", "local", "--gpus", "h100-80gb:1", "--cuda-version", "12.8", "--state-dir", join(dir, "state")],
      bareEnv(),
      false,
    );
    const listed = await poll(
      async () => ((await admin("GET", "/machines")).items as { id: number; online: boolean }[]).find((m) => m.id === machine.id),
      (m) => m?.online === true,
    );
    expect(listed).toMatchObject({
      gpus: [{ model: "h100-80gb", index: 0, name: "NVIDIA H100 80GB HBM3" }],
      agent_version: "0.1.0",
      driver_version: "580.126.09",
      cuda_version: "12.8",
    });
  });
});
