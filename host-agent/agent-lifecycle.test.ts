// The agent process's edges: bad arguments, --help and --version, a rejected token retried with backoff, and containers
// that never outlive their agent (SIGTERM or SIGKILL).
import { execFile } from "node:child_process";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { AGENT_VERSION } from "./agent.ts";
import { USAGE } from "./config.ts";
import { DEV_USAGE } from "./dev/dev-config.ts";
import { startAgentChild, type AgentChild } from "../test/support/agent/agent-child.ts";
import { NODE_BINARY } from "../test/support/agent/node-binary.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { healthAnswers, waitUntil } from "../test/support/agent/wait-until.ts";

const ID = "i-lifecycle234567a";
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(rejectNext = 0): Promise<{ fake: FakeMachineDo; agent: AgentChild; stateDir: string }> {
  const fake = new FakeMachineDo("secret");
  fake.rejectNext = rejectNext;
  const server = await fake.listen();
  const stateDir = await mkdtemp(join(tmpdir(), "agent-lifecycle-"));
  const agent = startAgentChild(["--server", server, "--token", "secret", "--runtime", "local", "--gpus", "l4:1", "--state-dir", stateDir], {
    DEV_READY_DELAY_MS: "0",
    DEV_PULL_MS: "0",
  });
  cleanups.push(() => rm(stateDir, { recursive: true, force: true }), () => fake.close(), () => agent.stop());
  return { fake, agent, stateDir };
}

async function runningContainerPort(fake: FakeMachineDo, stateDir: string): Promise<number> {
  await fake.waitFor("hello");
  fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 1, heartbeat_ms: 1000 });
  fake.send({ type: "command", command_id: "c1", op: "create", instance_id: ID, spec: testSpec(ID) });
  await fake.waitFor("ack", (m) => m.command_id === "c1" && m.ok);
  const log = await waitUntil(async () => {
    const text = await readFile(join(stateDir, "containers", ID, "logs.jsonl"), "utf8").catch(() => "");
    return /8000->127\.0\.0\.1:(\d+)/.exec(text)?.[1];
  }, "container ready line");
  const port = Number(log);
  expect(await healthAnswers(port)).toBe(true);
  return port;
}

describe("host agent process", () => {
  it("exits 2 with a clear message on bad arguments", async () => {
    const agent = startAgentChild(["--token", "t"], { AGENT_SERVER: "" });
    expect(await agent.exited).toBe(2);
    expect(agent.stderr()).toContain("--server (or AGENT_SERVER) is required");
    expect(agent.stderr()).toContain("Run gpu-rental-agent --help for the flags.");
  });

  it("--help prints the usage and exits 0; --version prints the version", async () => {
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    expect(await promisify(execFile)(NODE_BINARY, [main, "--help"])).toEqual({ stdout: USAGE, stderr: "" });
    expect(await promisify(execFile)(NODE_BINARY, [main, "--version"])).toEqual({ stdout: `${AGENT_VERSION}\n`, stderr: "" });
    const devMain = fileURLToPath(new URL("./dev/dev-main.ts", import.meta.url));
    expect(await promisify(execFile)(NODE_BINARY, [devMain, "--help"])).toEqual({ stdout: DEV_USAGE, stderr: "" });
  });

  it("the production entry refuses the dev agent's local runtime", async () => {
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    const refused = promisify(execFile)(NODE_BINARY, [main, "--server", "http://127.0.0.1:1", "--token", "t", "--runtime", "local"]);
    await expect(refused).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--runtime must be docker, got "local"') });
  });

  it("logs a rejected token and keeps retrying until it is let in", async () => {
    const { fake, agent } = await setUp(2);
    // Three connections of a process still starting: under CI's full load that outran the usual 10 s once.
    await fake.waitFor("hello", () => true, 0, 30_000);
    expect(fake.rejectedTokens).toEqual(["Bearer secret", "Bearer secret"]);
    expect(agent.logs.filter((l) => l.msg === "server rejected the agent token")).toEqual([
      expect.objectContaining({ level: "error", status: 401 }),
      expect.objectContaining({ level: "error", status: 401 }),
    ]);
  });

  it("stops its containers and exits 0 on SIGTERM", async () => {
    const { fake, agent, stateDir } = await setUp();
    const port = await runningContainerPort(fake, stateDir);
    expect(await agent.stop()).toBe(0);
    expect(await healthAnswers(port)).toBe(false);
  });

  it("takes its containers down with it even when killed outright", async () => {
    const { fake, agent, stateDir } = await setUp();
    const port = await runningContainerPort(fake, stateDir);
    agent.child.kill("SIGKILL");
    await waitUntil(async () => ((await healthAnswers(port)) ? undefined : true), "container gone");
  });
});
