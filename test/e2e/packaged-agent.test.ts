// The packaged agent (npm run build:agent) copied to a folder outside the repo, where no
// node_modules can be reached, answers --help and --version and joins a real `wrangler dev` stack as
// a production host does: GPUs from nvidia-smi (a stand-in printing a real host's output) and
// containers on the Docker engine (podman here). Its bundle carries none of the dev agent's stand-ins.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "../../host-agent/config.ts";
import { AGENT_NODE_FLAGS } from "../../host-agent/node-flags.ts";
import { buildAgent, DIST, type BuiltAgent } from "../../scripts/build-agent.ts";
import { devCodeIn } from "../../scripts/dev-code.ts";
import { startChild, type Child } from "../../scripts/dev/processes.ts";
import { FAKE_HOST, writeFakeNvidiaSmi } from "../support/agent/fake-nvidia-smi.ts";
import { poll, startE2eStack, type E2eStack } from "./support/e2e-stack.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

const hasEngine = Boolean(process.env.DOCKER_HOST);
let stack: E2eStack;
let dir: string;
let built: BuiltAgent;
let agent: Child | undefined;

beforeAll(async () => {
  built = await buildAgent();
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
  it("is built from the production entry and carries no dev code: no local runtime, dev container or synthetic GPUs", () => {
    expect(built.sources).toContain("host-agent/main.ts");
    expect(devCodeIn({ text: readFileSync(join(DIST, "agent.mjs"), "utf8"), sources: built.sources })).toEqual([]);
  });

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

  it("refuses the dev agent's local runtime", async () => {
    const refused = run(join(dir, "node"), [join(dir, "agent.mjs"), "--server", stack.baseUrl, "--token", "t", "--runtime", "local"], { cwd: dir, env: bareEnv() });
    await expect(refused).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--runtime must be docker, got "local"') });
  });

  if (!hasEngine && process.env.REQUIRE_DOCKER_ENGINE === "1") {
    it("needs a Docker-compatible engine to join the stack", () => {
      throw new Error("REQUIRE_DOCKER_ENGINE=1 but DOCKER_HOST is not set: run scripts/ci/podman.sh and export the DOCKER_HOST it prints");
    });
  }

  it.skipIf(!hasEngine)("connects to the real stack and reports nvidia-smi's GPUs, the agent, driver and CUDA versions", async () => {
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.baseUrl}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const machine = (await admin("POST", "/machines", { name: "packaged" })) as { id: number; agent_token: string };
    const tools = join(dir, "tools");
    await mkdir(tools);
    await writeFakeNvidiaSmi(tools);
    agent = startChild(
      "packaged-agent",
      join(dir, "node"),
      [...AGENT_NODE_FLAGS, join(dir, "agent.mjs"), "--server", stack.baseUrl, "--token", machine.agent_token, "--state-dir", join(dir, "state")],
      { ...bareEnv(), PATH: `${tools}:/usr/bin:/bin`, DOCKER_HOST: process.env.DOCKER_HOST },
      false,
    );
    const listed = await poll(
      async () => ((await admin("GET", "/machines")).items as { id: number; online: boolean }[]).find((m) => m.id === machine.id),
      (m) => m?.online === true,
    );
    expect(listed).toMatchObject({
      gpus: Array.from({ length: FAKE_HOST.gpus }, (_, index) => expect.objectContaining({ model: FAKE_HOST.model, index, name: FAKE_HOST.name })),
      agent_version: "0.1.0",
      driver_version: FAKE_HOST.driver,
      cuda_version: FAKE_HOST.cuda,
    });
  });
});
