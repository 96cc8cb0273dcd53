// Commands run one at a time per instance (in parallel across instances) and failures become reports.
import { describe, expect, it } from "vitest";
import type { AgentMessage, ContainerReport } from "../protocol/messages.ts";
import { CommandRunner, type CommandMessage } from "./command-runner.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { createLogger } from "./log.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";

const A = "i-aaaaaaaaaaaaaaaa";
const B = "i-bbbbbbbbbbbbbbbb";

function recordingRuntime(log: string[]): ContainerRuntime {
  const step = (name: string) => async (id: string) => {
    log.push(`${name} ${id} begin`);
    await new Promise((r) => setTimeout(r, 20));
    log.push(`${name} ${id} end`);
  };
  return {
    name: "local",
    list: async () => [],
    create: async () => ({ notice: "" }),
    start: step("start"),
    stop: step("stop"),
    destroy: async () => {
      throw new Error("disk on fire");
    },
    resolvePort: async () => null,
    logs: async () => null,
    httpPorts: async () => [],
    volumes: async () => [],
    volumeOwner: async () => null,
    exec: async () => null,
    readArchive: async () => null,
    writeArchive: async () => false,
    usage: async () => [],
    onExit: () => {},
    close: async () => {},
  };
}

const command = (id: string, op: CommandMessage["op"], instanceId: string): CommandMessage => ({ type: "command", command_id: id, op, instance_id: instanceId, spec: null });
const NOTICE = "disk_gb (10 GB) is not enforced on this host: --storage-opt is supported only for overlay over xfs with 'pquota' mount option";

describe("command runner", () => {
  it("serializes commands of one instance and overlaps different instances", async () => {
    const steps: string[] = [];
    const runner = new CommandRunner(recordingRuntime(steps), () => {}, () => {}, createLogger(() => {}));
    await Promise.all([runner.run(command("1", "start", A)), runner.run(command("2", "stop", A)), runner.run(command("3", "start", B))]);
    expect(steps.indexOf(`start ${A} end`)).toBeLessThan(steps.indexOf(`stop ${A} begin`));
    expect(steps.indexOf(`start ${B} begin`)).toBeLessThan(steps.indexOf(`start ${A} end`));
  });

  it("a create reports pulling, its pull progress, creating with the runtime's notice, then running", async () => {
    const reports: ContainerReport[] = [];
    const sent: AgentMessage[] = [];
    const runtime: ContainerRuntime = {
      ...recordingRuntime([]),
      create: async (_spec, onPullProgress) => {
        onPullProgress(0);
        onPullProgress(100);
        return { notice: NOTICE };
      },
    };
    const runner = new CommandRunner(runtime, (r) => reports.push(r), (m) => sent.push(m), createLogger(() => {}));
    await runner.run({ ...command("c", "create", A), spec: testSpec(A) });
    expect(reports).toEqual([
      { instance_id: A, state: "pulling", message: "" },
      { instance_id: A, state: "creating", message: NOTICE },
      { instance_id: A, state: "running", message: "" },
    ]);
    expect(sent).toEqual([
      { type: "pull_progress", instance_id: A, percent: 0 },
      { type: "pull_progress", instance_id: A, percent: 100 },
      { type: "ack", command_id: "c", ok: true, error: "" },
    ]);
  });

  it("turns a failure into an error report and a failed ack, and a create without spec into one too", async () => {
    const reports: ContainerReport[] = [];
    const sent: AgentMessage[] = [];
    const runner = new CommandRunner(recordingRuntime([]), (r) => reports.push(r), (m) => sent.push(m), createLogger(() => {}));
    await runner.run(command("d", "destroy", A));
    await runner.run(command("c", "create", B));
    expect(reports).toEqual([
      { instance_id: A, state: "error", message: "destroy failed: disk on fire" },
      { instance_id: B, state: "error", message: "create failed: create needs the instance's spec" },
    ]);
    expect(sent).toEqual([
      { type: "ack", command_id: "d", ok: false, error: "destroy failed: disk on fire" },
      { type: "ack", command_id: "c", ok: false, error: "create failed: create needs the instance's spec" },
    ]);
  });

  it("reports and acknowledges only the first line of a failure, bounded, and logs it whole", async () => {
    const reports: ContainerReport[] = [];
    const sent: AgentMessage[] = [];
    const logged: string[] = [];
    const body = `<html>\n<body>${"metadata ".repeat(100)}</body>\n</html>`;
    const runtime: ContainerRuntime = {
      ...recordingRuntime([]),
      create: async () => {
        throw new Error(`(HTTP code 500) server error - unexpected response from registry: ${body}`);
      },
    };
    const runner = new CommandRunner(runtime, (r) => reports.push(r), (m) => sent.push(m), createLogger((line) => logged.push(line)));
    await runner.run({ ...command("c", "create", A), spec: testSpec(A) });
    const line = "create failed: (HTTP code 500) server error - unexpected response from registry: <html>…";
    expect(reports.at(-1)).toEqual({ instance_id: A, state: "error", message: line });
    expect(sent.at(-1)).toEqual({ type: "ack", command_id: "c", ok: false, error: line });
    expect(logged.join("")).toContain("metadata metadata");
  });
});
