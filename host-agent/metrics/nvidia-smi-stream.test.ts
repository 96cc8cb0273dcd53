// The one long-lived nvidia-smi, run as a stand-in that replays a recorded H100 table (no GPU here):
// its lines become readings, one process serves every sample, a process that dies is started again,
// and a GPU that stops answering drops out.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { NODE_BINARY } from "../../test/support/agent/node-binary.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { Backoff } from "../backoff.ts";
import { createLogger } from "../log.ts";
import { NvidiaSmiStream } from "./nvidia-smi-stream.ts";

const FAKE_NVIDIA_SMI = fileURLToPath(new URL("../../test/support/agent/replaying-nvidia-smi.ts", import.meta.url));
const H100_LOAD = { index: 0, util_percent: 100, memory_used_mib: 19818, memory_total_mib: 81559, power_w: 631.95, power_limit_w: 700, temperature_c: 59, sm_clock_mhz: 1980 };

let stream: NvidiaSmiStream | null = null;
afterEach(() => stream?.close());

function startStream(table: string, intervalMs = 100) {
  const children: { args: string[]; child: ChildProcess; lines: number }[] = [];
  const logs: string[] = [];
  stream = new NvidiaSmiStream({
    intervalMs,
    log: createLogger((line) => logs.push(line)),
    backoff: new Backoff({ baseMs: 10, capMs: 10, random: () => 1 }),
    start: (args) => {
      const child = spawn(NODE_BINARY, [FAKE_NVIDIA_SMI, ...args], { env: { ...process.env, FAKE_NVIDIA_SMI_TABLE: table }, stdio: ["ignore", "pipe", "pipe"] });
      const entry = { args, child, lines: 0 };
      child.stdout!.on("data", (chunk: Buffer) => (entry.lines += chunk.toString().split("\n").length - 1));
      children.push(entry);
      return child;
    },
  });
  return { stream, children, logs };
}

describe("the long-lived nvidia-smi", () => {
  it("runs one process for every sample, looping at the interval, and reads each GPU's line", async () => {
    const { stream, children } = startStream("metrics-h100-80gb-hbm3-load.csv");
    expect(await waitUntil(() => (stream.read([], Date.now()).length > 0 ? stream.read([], Date.now()) : undefined), "a reading")).toEqual([H100_LOAD]);
    // Several intervals later, still the same process.
    await waitUntil(() => (children[0]!.lines >= 4 ? true : undefined), "four loops of output");
    expect(children).toHaveLength(1);
    expect(stream.starts).toBe(1);
    expect(children[0]!.args).toEqual([
      "--query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw,power.limit,temperature.gpu,clocks.sm",
      "--format=csv,noheader,nounits", "-lms", "100",
    ]);
  });

  it("starts nvidia-smi again when it dies, saying so, and keeps reading", async () => {
    const { stream, children, logs } = startStream("metrics-h100-80gb-hbm3-load.csv");
    await waitUntil(() => (stream.read([], Date.now()).length > 0 ? true : undefined), "a reading");
    children[0]!.child.kill("SIGKILL");
    await waitUntil(() => (children.length === 2 ? true : undefined), "a second nvidia-smi");
    expect(stream.starts).toBe(2);
    expect(logs.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: "warn", msg: "nvidia-smi stopped; starting it again", why: "signal SIGKILL", restart_in_ms: 10 }),
    );
    await waitUntil(() => (children[1]!.lines > 0 ? true : undefined), "a line from the new process");
    expect(stream.read([], Date.now())).toEqual([H100_LOAD]);
  });

  it("stops reporting a GPU whose last line is older than three intervals", async () => {
    const { stream } = startStream("metrics-h100-80gb-hbm3-load.csv", 1_000);
    await waitUntil(() => (stream.read([], Date.now()).length > 0 ? true : undefined), "a reading");
    expect(stream.read([], Date.now() + 2_900)).toHaveLength(1);
    expect(stream.read([], Date.now() + 3_100)).toEqual([]);
  });

  it("stops for good when closed", async () => {
    const { stream, children } = startStream("metrics-h100-80gb-hbm3-load.csv");
    await waitUntil(() => (stream.read([], Date.now()).length > 0 ? true : undefined), "a reading");
    stream.close();
    await waitUntil(() => (children[0]!.child.exitCode !== null || children[0]!.child.signalCode !== null ? true : undefined), "nvidia-smi gone");
    expect(children).toHaveLength(1);
  });
});
