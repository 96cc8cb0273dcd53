// The local runtime with real child processes: lifecycle, readiness delay, data kept on stop,
// removal on destroy, containers found again by a new runtime on the same state dir, their logs, the
// requests they report (the synthetic GPUs' load), probes left out, and sessions: in /data, sized.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { NODE_BINARY } from "../../test/support/agent/node-binary.ts";
import { testSpec } from "../../test/support/agent/specs.ts";
import { healthAnswers, waitUntil } from "../../test/support/agent/wait-until.ts";
import { USAGE_REPORT_MS } from "./container/usage-report.ts";
import { dataMountWorks } from "./data-root.ts";
import { LocalRuntime } from "./local-runtime.ts";
import { PROBE_USER_AGENT } from "../readiness-probes.ts";
import type { ContainerExit, LogLine } from "../runtime/runtime.ts";

const ID = "i-aaaaaaaaaaaaaaaa";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A log stream's lines as "stream text", once it ends. */
async function lines(source: Readable | null): Promise<string[]> {
  if (!source) throw new Error("no logs");
  const got: string[] = [];
  for await (const entry of source) got.push(`${(entry as LogLine).stream} ${(entry as LogLine).line}`);
  return got;
}

async function newRuntime(stateDir?: string, readyDelayMs = 300): Promise<{ runtime: LocalRuntime; stateDir: string }> {
  const dir = stateDir ?? (await mkdtemp(join(tmpdir(), "local-runtime-")));
  if (!stateDir) cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const runtime = new LocalRuntime({ stateDir: dir, readyDelayMs, pullMs: 40, nodePath: NODE_BINARY });
  cleanups.push(() => runtime.close());
  return { runtime, stateDir: dir };
}

describe("local runtime", () => {
  it("creates, starts (ports refuse during the ready delay), stops keeping data, restarts, destroys", async () => {
    const { runtime, stateDir } = await newRuntime();
    const progress: number[] = [];
    await runtime.create(testSpec(ID), (p) => progress.push(p));
    expect(progress).toEqual([0, 25, 50, 75, 100]);
    await runtime.create(testSpec(ID), (p) => progress.push(p));
    expect(progress).toHaveLength(5);
    expect(await runtime.list()).toEqual([{ instanceId: ID, state: "stopped" }]);
    expect(await runtime.resolvePort(ID, 8000)).toBeNull();

    await runtime.start(ID);
    await runtime.start(ID);
    const endpoint = await runtime.resolvePort(ID, 8000);
    expect(endpoint?.host).toBe("127.0.0.1");
    expect(await runtime.resolvePort(ID, 9999)).toBeNull();
    expect(await healthAnswers(endpoint?.port ?? 0)).toBe(false);
    await waitUntil(async () => ((await healthAnswers(endpoint?.port ?? 0)) ? true : undefined), "ready");
    expect(await runtime.list()).toEqual([{ instanceId: ID, state: "running" }]);

    const dataFile = join(stateDir, "containers", ID, "data", "weights.bin");
    await writeFile(dataFile, "kept");
    await runtime.stop(ID);
    await runtime.stop(ID);
    expect(await healthAnswers(endpoint?.port ?? 0)).toBe(false);
    expect(await runtime.resolvePort(ID, 8000)).toBeNull();
    expect(await readFile(dataFile, "utf8")).toBe("kept");

    await runtime.start(ID);
    const again = await runtime.resolvePort(ID, 8000);
    await waitUntil(async () => ((await healthAnswers(again?.port ?? 0)) ? true : undefined), "ready again");
    await runtime.destroy(ID);
    await runtime.destroy(ID);
    expect(existsSync(join(stateDir, "containers", ID))).toBe(false);
    expect(await runtime.list()).toEqual([]);
    expect(await healthAnswers(again?.port ?? 0)).toBe(false);
  });

  it("finds its containers again from a new runtime on the same state dir, as stopped", async () => {
    const { runtime, stateDir } = await newRuntime();
    await runtime.create(testSpec(ID), () => {});
    await runtime.start(ID);
    await runtime.close();
    const { runtime: restarted } = await newRuntime(stateDir);
    expect(await restarted.list()).toEqual([{ instanceId: ID, state: "stopped" }]);
    await restarted.start(ID);
    expect(await restarted.list()).toEqual([{ instanceId: ID, state: "running" }]);
  });

  it("reports a container process that dies on its own, and not one it stopped", async () => {
    const { runtime, stateDir } = await newRuntime();
    const exits: ContainerExit[] = [];
    runtime.onExit((exit) => exits.push(exit));
    await runtime.create(testSpec(ID, { ports: [8000, 8001] }), () => {});
    await runtime.start(ID);
    await runtime.stop(ID);
    expect(exits).toEqual([]);
    // An invalid ready delay makes the dev server exit with code 2 right away.
    const { runtime: broken } = await newRuntime(stateDir, -1);
    broken.onExit((exit) => exits.push(exit));
    await broken.start(ID);
    await waitUntil(() => (exits.length > 0 ? true : undefined), "exit report");
    expect(exits).toEqual([{ instanceId: ID, state: "error", message: "container process exited with code 2" }]);
    expect(await broken.list()).toEqual([{ instanceId: ID, state: "stopped" }]);
  });

  it("reports the requests the dev container served, which its synthetic GPUs follow, leaving out the agent's readiness probes", async () => {
    const { runtime } = await newRuntime(undefined, 50);
    await runtime.create(testSpec(ID), () => {});
    await runtime.start(ID);
    const base = `http://127.0.0.1:${(await runtime.resolvePort(ID, 8000))?.port}`;
    const probe = () => fetch(`${base}/health`, { headers: { "user-agent": PROBE_USER_AGENT } }).then((r) => r.ok, () => false);
    await waitUntil(async () => ((await probe()) ? true : undefined), "ready");
    for (let n = 0; n < 5; n++) await probe();
    await fetch(`${base}/v1/models`);
    await fetch(`${base}/health`);
    const served = async () => (await runtime.usage())[0]?.requestsServed ?? null;
    await waitUntil(async () => ((await served() ?? 0) >= 2 ? true : undefined), "the requests reported");
    // Two reports later, nothing else was counted.
    await sleep(2 * USAGE_REPORT_MS);
    expect(await served()).toBe(2);
  });

  it.skipIf(!dataMountWorks)("runs a session in the instance's data folder, which is /data there as it is for files (gpu cp)", async () => {
    const { runtime, stateDir } = await newRuntime(undefined, 50);
    await runtime.create(testSpec(ID), () => {});
    await runtime.start(ID);
    await writeFile(join(stateDir, "containers", ID, "data", "in.txt"), "put there");
    const session = await runtime.exec(ID, { command: 'pwd; echo "$HOME"; cat /data/in.txt; echo; echo made > /data/out.txt', env: {}, pty: null });
    let stdout = "";
    session!.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await session!.exit).toBe(0);
    expect(stdout).toBe("/data\n/data\nput there\n");
    expect(await readFile(join(stateDir, "containers", ID, "data", "out.txt"), "utf8")).toBe("made\n");
    let tar = "";
    for await (const chunk of (await runtime.readArchive(ID, "/data/out.txt"))!) tar += (chunk as Buffer).toString("latin1");
    expect(tar).toContain("made\n");
  });

  it("gives a session the terminal size asked, and a new size when the client's window changes", async () => {
    const { runtime } = await newRuntime(undefined, 50);
    await runtime.create(testSpec(ID), () => {});
    await runtime.start(ID);
    const command = 'stty size; until [ "$(stty size)" = "40 120" ]; do sleep 0.05; done; echo resized';
    const session = (await runtime.exec(ID, { command, env: {}, pty: { cols: 100, rows: 30 } }))!;
    let stdout = "";
    session.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    await waitUntil(() => (stdout.includes("30 100") ? true : undefined), "the first size");
    session.resize(120, 40);
    await waitUntil(() => (stdout.includes("resized") ? true : undefined), "the new size");
    expect(await session.exit).toBe(0);
  });

  it("refuses to start or stop an instance it has no container for, and has no logs or HTTP ports for it", async () => {
    const { runtime } = await newRuntime();
    await expect(runtime.start(ID)).rejects.toThrow(`no container for ${ID}`);
    await expect(runtime.stop(ID)).rejects.toThrow(`no container for ${ID}`);
    expect(await runtime.logs(ID, { tail: 10, follow: false })).toBeNull();
    expect(await runtime.httpPorts(ID)).toEqual([]);
  });

  it("keeps the container's stdout and stderr as its log: tails, a follow that ends when it stops, kept across stop, gone on destroy", async () => {
    const { runtime } = await newRuntime(undefined, 50);
    const httpPorts = [{ port: 8000, path: "/health" }];
    await runtime.create(testSpec(ID, { http_ports: httpPorts }), () => {});
    expect(await runtime.httpPorts(ID)).toEqual(httpPorts);
    expect(await lines(await runtime.logs(ID, { tail: 10, follow: false }))).toEqual([]);
    await runtime.start(ID);
    const endpoint = await runtime.resolvePort(ID, 8000);
    await waitUntil(async () => ((await healthAnswers(endpoint?.port ?? 0)) ? true : undefined), "ready");
    const first = await waitUntil(async () => {
      const got = await lines(await runtime.logs(ID, { tail: 10_000, follow: false }));
      return got.includes("stdout GET /health 200") ? got : undefined;
    }, "the request's line");
    // Two pipes: lines written to both at the same moment may be read in either order.
    expect(new Set(first.slice(0, 2))).toEqual(new Set([
      "stdout dev container: loading Qwen/Qwen2.5-0.5B-Instruct, ready in 50 ms",
      "stderr dev container: no GPU here, answers come from a stand-in model",
    ]));
    expect(first[2]).toBe(`stdout dev container ready on 8000->127.0.0.1:${endpoint?.port}`);

    const follow = lines(await runtime.logs(ID, { tail: 1, follow: true }));
    await fetch(`http://127.0.0.1:${endpoint?.port}/not-here`);
    await waitUntil(async () => ((await lines(await runtime.logs(ID, { tail: 1, follow: false }))).includes("stderr GET /not-here 404") ? true : undefined), "404 line");
    await runtime.stop(ID);
    expect(await follow).toEqual([first.at(-1), "stderr GET /not-here 404"]);

    expect(await lines(await runtime.logs(ID, { tail: 2, follow: true }))).toEqual([first.at(-1), "stderr GET /not-here 404"]);
    await runtime.destroy(ID);
    expect(await runtime.logs(ID, { tail: 10, follow: false })).toBeNull();
  });
});
