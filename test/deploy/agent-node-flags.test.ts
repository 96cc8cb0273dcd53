// Every launcher of the packaged agent passes the agent's Node flags (host-agent/node-flags.ts), and
// Node takes them: without them the agent spends 40% of its CPU in garbage collection under a stream,
// and holds some 30 MB of buffers it has relayed.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { AGENT_NODE_FLAGS } from "../../host-agent/node-flags.ts";

const deployFile = (name: string) => readFileSync(new URL(`../../deploy/host-agent/${name}`, import.meta.url), "utf8");

/** The words between the Node binary and the script in a launch line. */
function flagsBefore(script: string, words: string[]): string[] {
  const at = words.findIndex((word) => word.includes(script));
  expect(at, `${script} in ${words.join(" ")}`).toBeGreaterThan(0);
  return words.slice(1, at).filter((word) => !word.startsWith("--env-file="));
}

describe("the agent's Node flags", () => {
  it("the systemd unit passes them", () => {
    const line = deployFile("gpu-rental-agent.service").split("\n").find((l) => l.startsWith("ExecStart="))!;
    expect(flagsBefore("agent.mjs", line.slice("ExecStart=".length).split(" "))).toEqual(AGENT_NODE_FLAGS);
  });

  it("the gpu-rental-agent wrapper passes them on each of its exec lines", () => {
    const lines = deployFile("gpu-rental-agent").split("\n").filter((l) => l.trim().startsWith("exec "));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(flagsBefore("agent.mjs", line.trim().split(" ").slice(1))).toEqual(AGENT_NODE_FLAGS);
  });

  it("the Dockerfile's entrypoint passes them", () => {
    const line = deployFile("Dockerfile").split("\n").find((l) => l.startsWith("ENTRYPOINT "))!;
    expect(flagsBefore("agent.mjs", JSON.parse(line.slice("ENTRYPOINT ".length)) as string[])).toEqual(AGENT_NODE_FLAGS);
  });

  it("Node starts with them, its young generation at least 8 MiB", async () => {
    const newSpace = `const s = require("node:v8").getHeapSpaceStatistics().find((x) => x.space_name === "new_space"); console.log(s.space_size)`;
    const { stdout } = await promisify(execFile)(process.execPath, [...AGENT_NODE_FLAGS, "-e", newSpace]);
    expect(Number(stdout)).toBeGreaterThanOrEqual(8 * 1024 * 1024);
  });

  it("Node starts with them, V8's young collection exposed (relayed-buffers.ts)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...AGENT_NODE_FLAGS, "-e", `gc({ type: "minor" }); console.log(typeof gc)`]);
    expect(stdout.trim()).toBe("function");
  });
});
