// The `gpu` CLI as a subprocess against the real local stack (one stack for every CLI test): every
// command, --json, terminal and pipe output, configuration, errors, and `forward` for HTTP,
// server-sent events, WebSockets and the openai SDK.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ok, type Instance } from "../../client/index.ts";
import { freePort, poll, useE2eStack } from "./support/e2e-stack.ts";
import { appRequest } from "./support/app-origin.ts";
import { cliEnv, ROOT, RunningGpu, runCommand, runGpu, runGpuOnTerminal } from "./support/gpu-cli.ts";
import { withContainerFolderBlocked } from "./support/host-faults.ts";
import { testTempDir, useTempDir } from "../support/agent/temp-dir.ts";

// Agents sample every second, so `gpu metrics` and `gpu top` have figures without waiting 10 s.
const stack = useE2eStack({}, { AGENT_METRICS_INTERVAL_MS: "1000" });
let env: NodeJS.ProcessEnv;
/** A config home for one test (the file's own is `home`). */
const configHome = () => testTempDir("gpu-cli-config-");
const home = useTempDir("gpu-cli-config-");

beforeAll(() => {
  env = cliEnv(home.path, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
});

const gpu = (...args: string[]) => runGpu(args, env);
const read = (id: string) => ok(stack.client.GET("/v1/instances/{id}", { params: { path: { id } } }));
/** An instance without what its host's samples and probes change from one read to the next (readiness, GPU utilisation). */
const withoutLive = ({ gpu_util_percent: _util, ...instance }: Instance) => ({ ...instance, ports: instance.ports.map(({ ready: _ready, ready_at: _at, ...port }) => port) });
const COMMANDS = ["login", "gpus", "catalog", "launch", "ls", "show", "events", "logs", "metrics", "top", "stop", "start", "rm", "rename", "idle-stop", "open", "forward", "balance", "keys", "ledger", "usage", "members", "accounts", "audit"];

describe("installing and configuring", () => {
  it("`npx gpu` in the repo runs the package's bin on the repo's Node 22, even with the machine's older node first in PATH", async () => {
    const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(join(ROOT, "node_modules"))).join(delimiter);
    const result = await runCommand("npx", ["gpu", "--help"], { ...env, PATH: path, npm_config_update_notifier: "false" });
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toContain(`  ${command} `);
  });

  it("without a URL, or a key, a command says how to configure and exits 1", async () => {
    const noUrl = await runGpu(["ls"], cliEnv(configHome(), { GPU_API_KEY: stack.key }));
    expect(noUrl).toMatchObject({ code: 1, stdout: "" });
    expect(noUrl.stderr).toBe("error: no API URL: set GPU_API_URL (e.g. http://127.0.0.1:8787) or run `gpu login`\n");
    const noKey = await runGpu(["ls"], cliEnv(configHome(), { GPU_API_URL: stack.baseUrl }));
    expect(noKey).toMatchObject({ code: 1, stderr: "error: no API key: set GPU_API_KEY or run `gpu login`\n" });
  });

  it("login checks the key, saves URL and key in a 0600 file, and later commands use it", async () => {
    const home = configHome();
    const bare = cliEnv(home);
    const refused = await runGpu(["login", "--url", `${stack.baseUrl}/v1`], bare, "gpk_acc-aaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*\(unauthorized, HTTP 401\)\n$/);
    expect(() => statSync(join(home, "gpu-rental", "config.json"))).toThrow();

    const login = await runGpu(["login", "--url", `${stack.baseUrl}/v1`], bare, `${stack.key}\n`);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${stack.baseUrl} as ${stack.setup.account.id}`);
    const file = join(home, "gpu-rental", "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = { api_url: stack.baseUrl, api_key: stack.key };
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ ...saved, accounts: [{ account_id: stack.setup.account.id, ...saved }] });

    const balance = await runGpu(["balance", "--json"], bare);
    expect(balance.code).toBe(0);
    expect(JSON.parse(balance.stdout)).toEqual(await ok(stack.client.GET("/v1/me")));
  });

  it("an unreachable API is a clear error", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runGpu(["gpus"], cliEnv(configHome(), { GPU_API_URL: url, GPU_API_KEY: stack.key }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^error: cannot reach ${url}: .*ECONNREFUSED`));
  });
});

describe("reading the catalog and the account", () => {
  it("gpus, catalog and balance print the API's JSON unchanged with --json", async () => {
    for (const [command, path] of [["gpus", "/v1/gpus"], ["catalog", "/v1/catalog"], ["balance", "/v1/me"]] as const) {
      const { code, stdout } = await gpu(command, "--json");
      expect(code, command).toBe(0);
      expect(JSON.parse(stdout), command).toEqual(await ok(stack.client.GET(path)));
    }
  });

  it("in a pipe, tables are tab-separated lines without a header", async () => {
    const { stdout } = await gpu("gpus");
    expect(stdout.trim().split("\n").map((line) => line.split("\t").slice(0, 3))).toEqual([
      ["rtx4090", "NVIDIA GeForce RTX 4090", "24 GB"],
      ["a100-80gb", "NVIDIA A100 80GB", "80 GB"],
      ["h100-80gb", "NVIDIA H100 80GB", "80 GB"],
    ]);
    expect((await gpu("gpus")).stdout).toContain("\t$0.69\t");
    expect((await gpu("balance")).stdout).toMatch(/^\$\d+\.\d{2,6}\n$/);
    const catalog = (await gpu("catalog")).stdout.split("\n");
    expect(catalog).toContainEqual(expect.stringMatching(/^vllm\tvLLM\t8000\/openai\trequired\t/));
  });
});

describe("an instance's life through the CLI", () => {
  let id: string;

  it("launch takes every field as a flag; --wait follows it to running in plain lines; --json prints it as last read", async () => {
    const result = await gpu(
      "launch", "--gpu-model", "rtx4090", "--gpu-count", "1", "--template", "vllm", "--model", "qwen2.5-0.5b-instruct",
      "--disk-gb", "60", "--label", "cli-demo", "--env", "A=1", "--env", "B=x=y", "--idle-stop", "1440", "--wait", "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const instance = JSON.parse(result.stdout) as Instance;
    id = instance.id;
    expect(instance).toMatchObject({
      status: "running", gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct",
      disk_gb: 60, label: "cli-demo", env: { A: "1", B: "x=y" }, idle_stop_minutes: 1440,
    });
    // Its port's readiness may have changed since (the model server loads after "running"); nothing else has.
    expect(withoutLive(instance)).toEqual(withoutLive(await read(id)));
    const progress = result.stderr.trim().split("\n");
    expect(progress[0]).toBe(`${id} creating`);
    expect(progress.at(-1)).toMatch(new RegExp(`^${id} running: `));
    expect(result.stderr).not.toContain("\r");
    // The later tests compare whole instance objects: from here on the port stays ready.
    await poll(() => read(id), (i) => i.ports.every((p) => p.ready));
  });

  it("launch --wait --ready also waits until every HTTP port answers, the last progress line saying so", async () => {
    const result = await gpu("launch", "--gpu-model", "rtx4090", "--template", "vllm", "--model", "qwen2.5-0.5b-instruct", "--wait", "--ready", "--json");
    expect(result.code, result.stderr).toBe(0);
    const instance = JSON.parse(result.stdout) as Instance;
    expect(instance.status).toBe("running");
    expect(instance.ports).toEqual([expect.objectContaining({ port: 8000, ready: true, ready_at: expect.any(String) })]);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(new RegExp(`^${instance.id} running: port 8000 \\(openai\\) ready after \\d+ s$`));
    expect((await gpu("rm", instance.id, "--yes")).code).toBe(0);
  });

  it("on a terminal, launch --wait redraws one live line and ends with the instance running", async () => {
    const { code, stdout } = await runGpuOnTerminal(["launch", "--gpu-model", "h100-80gb", "--template", "pytorch", "--wait"], env);
    expect(code).toBe(0);
    const launched = /Launched (i-[a-z2-7]{16}): 1 × h100-80gb, pytorch, \$2\.99\/hour/.exec(stdout);
    expect(launched).not.toBeNull();
    expect(stdout).toContain("\r\x1b[2K");
    expect(stdout).toContain(`✓ ${launched![1]} is running`);
    expect(stdout).toContain(`gpu forward ${launched![1]} 8888`);
    expect((await gpu("rm", launched![1]!, "--yes")).code).toBe(0);
  });

  it("ls and show list it (tab-separated in a pipe) and print the API's JSON with --json", async () => {
    const ls = await gpu("ls");
    expect(ls.stdout.split("\n")).toContainEqual(expect.stringMatching(new RegExp(`^${id}\tcli-demo\trunning\t1 × rtx4090\t(-|[\\d.]+%)\tvllm\t`)));
    const listed = JSON.parse((await gpu("ls", "--json")).stdout) as { items: Instance[] };
    expect(listed.items.map(withoutLive)).toEqual((await ok(stack.client.GET("/v1/instances"))).items.map(withoutLive));
    const show = (await gpu("show", id)).stdout.split("\n");
    expect(show).toContain("status\trunning");
    expect(show).toContain(`port 8000\tapi (openai) ${stack.baseUrl}/v1/instances/${id}/proxy/8000/`);
    expect(withoutLive(JSON.parse((await gpu("show", id, "--json")).stdout) as Instance)).toEqual(withoutLive(await read(id)));
  });

  it("open prints the app's one-time address on its own origin; it opens the app once; --json is the API's answer", async () => {
    const printed = await gpu("open", id, "8000");
    expect(printed.code).toBe(0);
    const url = printed.stdout.trim();
    expect(url).toMatch(new RegExp(`^http://${id}-8000\\.localhost:\\d+/\\?gpr_ticket=`));
    expect((await appRequest(url)).status).toBe(302);
    expect((await appRequest(url)).status).toBe(401);
    const json = JSON.parse((await gpu("open", id, "8000", "--json")).stdout) as { url: string; expires_at: string };
    expect(json).toEqual({ url: expect.stringContaining(`${id}-8000.`), expires_at: expect.any(String) });
    expect(await gpu("open", id, "9")).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_found, HTTP 404)") });
  });

  it("rename sets the label; events lists the log oldest first", async () => {
    const renamed = await gpu("rename", id, "renamed", "--json");
    expect(JSON.parse(renamed.stdout)).toMatchObject({ id, label: "renamed" });
    const api = await ok(stack.client.GET("/v1/instances/{id}/events", { params: { path: { id } } }));
    expect(JSON.parse((await gpu("events", id, "--json")).stdout)).toEqual(api);
    const lines = (await gpu("events", id)).stdout.trim().split("\n");
    expect(lines).toEqual([...api.items].reverse().map((e) => `${e.created_at}  ${e.message}`));
  });

  it("idle-stop sets the minutes or turns it off (never); the API's refusal and the parser's are errors", async () => {
    expect(JSON.parse((await gpu("idle-stop", id, "30", "--json")).stdout)).toMatchObject({ id, idle_stop_minutes: 30 });
    expect((await read(id)).idle_stop_minutes).toBe(30);
    expect(await gpu("idle-stop", id, "never")).toEqual({ code: 0, stdout: `${id} is never stopped for being idle\n`, stderr: "" });
    expect(await gpu("idle-stop", id, "60", "--quiet")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await read(id)).idle_stop_minutes).toBe(60);
    expect(await gpu("idle-stop", id, "never")).toMatchObject({ code: 0 });
    expect((await read(id)).idle_stop_minutes).toBeNull();
    expect(await gpu("idle-stop", id, "4")).toEqual({
      code: 1, stdout: "", stderr: "error: idle_stop_minutes: must be an integer from 5 to 1440, or null for never (invalid, HTTP 400)\n",
    });
    const soon = await gpu("idle-stop", id, "soon");
    expect(soon.code).toBe(2);
    expect(soon.stderr).toContain("must be a whole number of minutes or `never`");
    expect((await read(id)).idle_stop_minutes).toBeNull();
  });

  it("logs prints the container's last lines; --json one {t, stream, line} object per line; an unknown instance is the API's 404", async () => {
    await fetch(`${stack.baseUrl}/v1/instances/${id}/proxy/8000/echo/from-cli`, { headers: { authorization: `Bearer ${stack.key}` } });
    const probe = "GET /health 200";
    const text = await poll(() => gpu("logs", id, "--tail", "5"), (r) => r.stdout.split("\n").includes("GET /echo/from-cli 200"));
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n")).toHaveLength(6);
    const json = await gpu("logs", id, "--tail", "5", "--json");
    const events = json.stdout.trim().split("\n").map((line) => JSON.parse(line) as { t: string; stream: string; line: string });
    expect(events).toHaveLength(5);
    for (const event of events) expect(Object.keys(event)).toEqual(["t", "stream", "line"]);
    expect(events.filter((e) => e.line !== probe).at(-1)).toEqual({ t: expect.any(String), stream: "stdout", line: "GET /echo/from-cli 200" });
    expect(await gpu("logs", "i-aaaaaaaaaaaaaaaa")).toEqual({ code: 1, stdout: "", stderr: "error: no instance i-aaaaaaaaaaaaaaaa in this account (not_found, HTTP 404)\n" });
    expect((await gpu("logs", id, "--tail", "0")).stderr).toBe("error: tail: must be an integer from 1 to 10000 (invalid, HTTP 400)\n");
  });

  it("metrics prints a row per series (tab-separated in a pipe) and the API's answer with --json; a window the API refuses is its 400", async () => {
    for (let n = 0; n < 20; n++) await fetch(`${stack.baseUrl}/v1/instances/${id}/proxy/8000/v1/models`, { headers: { authorization: `Bearer ${stack.key}` } });
    const answer = await poll(() => ok(stack.client.GET("/v1/instances/{id}/metrics", { params: { path: { id } } })), (m) => m.gpus.length > 0 && m.container.length > 1);
    const index = answer.gpus[0]!.index;
    const text = await gpu("metrics", id);
    expect(text.code, text.stderr).toBe(0);
    const rows = text.stdout.trim().split("\n").map((line) => line.split("\t"));
    expect(rows.map((row) => row[0])).toEqual([`gpu ${index} util`, `gpu ${index} memory`, `gpu ${index} power`, `gpu ${index} temperature`, "cpu", "memory"]);
    expect(rows[1]).toEqual([`gpu ${index} memory`, expect.stringMatching(/^[\d.]+ GiB of 24 GiB$/), expect.any(String), expect.any(String), expect.stringMatching(/^[▁-█ ]+$/)]);
    const day = JSON.parse((await gpu("metrics", id, "--window", "24h", "--json")).stdout) as { window: string; interval_s: number; gpus: { index: number }[] };
    expect(day).toMatchObject({ window: "24h", interval_s: 60, gpus: [{ index }] });
    expect(await gpu("metrics", id, "--window", "2h")).toEqual({ code: 1, stdout: "", stderr: "error: window: must be one of 1h, 24h, 7d (invalid, HTTP 400)\n" });
  });

  it("top lists the running instances with their GPUs' utilisation and price: once in a pipe, redrawn on a terminal", async () => {
    const piped = await gpu("top");
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.split("\n")).toContainEqual(expect.stringMatching(new RegExp(`^${id}\t[^\t]*\t1 × rtx4090\t[\\d.]+%\t[\\d.]+ of 24 GiB\t[\\d.]+%\t[\\d.]+ GiB\t\\$0\\.69$`)));
    const json = JSON.parse((await gpu("top", "--json")).stdout) as { items: { instance: Instance; metrics: { window: string } }[] };
    expect(json.items.find((item) => item.instance.id === id)).toMatchObject({ instance: { id, status: "running" }, metrics: { window: "1h" } });
    const live = await runGpuOnTerminal(["top", "-n", "2", "-d", "1"], env);
    expect(live.code).toBe(0);
    expect(live.stdout.split("\x1b[H\x1b[2J")).toHaveLength(3);
    expect(live.stdout).toMatch(/ID +LABEL +GPUS +GPU UTIL +GPU MEMORY +CPU +MEMORY +PER HOUR/);
    expect(live.stdout).toMatch(/\d+ running, \$[\d.]+\/hour · .* · every 1 s · Ctrl-C to quit/);
  });

  it("events --follow prints new events as they happen, and ends on Ctrl-C; logs --follow prints new lines and ends by itself when the container stops", async () => {
    const follow = new RunningGpu(["events", id, "--follow"], env);
    const logs = new RunningGpu(["logs", id, "--follow", "--tail", "1"], env);
    await follow.line((line) => line.includes("Renamed to"));
    await logs.line(() => true);
    await fetch(`${stack.baseUrl}/v1/instances/${id}/proxy/8000/echo/followed`, { headers: { authorization: `Bearer ${stack.key}` } });
    await logs.line((line) => line === "GET /echo/followed 200");
    expect((await gpu("stop", id)).code).toBe(0);
    await follow.line((line) => line.includes("Stop requested"));
    expect(await follow.interrupt()).toBe(0);
    expect(await logs.exited()).toBe(0);
    expect(logs.stderr).toBe("");
  });

  it("stop, start and rm act and, with --json, print the instance as read after", async () => {
    expect(await gpu("start", id)).toEqual({ code: 0, stdout: `Starting ${id}\n`, stderr: "" });
    await poll(() => read(id), (i) => i.status === "running");
    expect(await gpu("stop", id, "--quiet")).toEqual({ code: 0, stdout: "", stderr: "" });
    const again = await gpu("stop", id);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`error: cannot stop an instance whose status is stopped (conflict, HTTP 409)\n`);
    const started = await gpu("start", id, "--json");
    expect(["starting", "running"]).toContain((JSON.parse(started.stdout) as Instance).status);
    await poll(() => read(id), (i) => i.status === "running");
    const refused = await gpu("rm", id);
    expect(refused).toMatchObject({ code: 1, stderr: `error: destroying ${id} deletes its data: pass --yes to confirm\n` });
    const destroyed = await gpu("rm", id, "--yes", "--json");
    expect(JSON.parse(destroyed.stdout)).toMatchObject({ id, status: "destroyed" });
  });

  it("in a pipe, stop, start, rm and idle-stop print one plain line saying what was done; on a terminal it is marked", async () => {
    const other = (await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" })).id;
    expect(await gpu("idle-stop", other, "30")).toEqual({ code: 0, stdout: `${other} stops after 30 min idle\n`, stderr: "" });
    expect(await gpu("stop", other)).toEqual({ code: 0, stdout: `Stopped ${other}\n`, stderr: "" });
    const onTerminal = await runGpuOnTerminal(["start", other], env);
    expect(onTerminal).toMatchObject({ code: 0, stdout: `✓ Starting ${other}\r\n` });
    expect(await gpu("rm", other, "--yes")).toEqual({ code: 0, stdout: `Destroyed ${other}\n`, stderr: "" });
  });
});

describe("API keys and the ledger", () => {
  const keys = () => ok(stack.client.GET("/v1/keys"));

  it("keys create prints the new key once on stdout; it works at once; keys ls shows its prefix, never the key", async () => {
    const created = await gpu("keys", "create", "--name", "ci");
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^gpk_acc-[a-z2-7]{16}_[a-z2-7]{32}$/);
    const balance = await runGpu(["balance", "--json"], { ...env, GPU_API_KEY: key });
    expect(balance.code).toBe(0);
    const listed = (await keys()).items.find((k) => k.name === "ci")!;
    const ls = await gpu("keys", "ls");
    expect(ls.stdout).toContain(`${listed.id}\tci\t${listed.prefix}\t`);
    expect(ls.stdout).not.toContain(key);
    expect(JSON.parse((await gpu("keys", "ls", "--json")).stdout)).toEqual(await keys());
  });

  it("keys create --json prints the API's answer, key included", async () => {
    const created = await gpu("keys", "create", "--json");
    const body = JSON.parse(created.stdout) as { id: string; key: string; prefix: string; name: string };
    expect(body).toMatchObject({ id: expect.stringMatching(/^key-/), key: expect.stringMatching(/^gpk_/), name: "" });
    expect(body.key.startsWith(body.prefix)).toBe(true);
  });

  it("keys create --scope instances:read --expires 30d: keys ls shows both; the key reads instances, and its launch is refused 403 naming instances:write", async () => {
    const before = Date.now();
    const created = await gpu("keys", "create", "--name", "reader", "--scope", "instances:read", "--expires", "30d");
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const listed = (await keys()).items.find((k) => k.name === "reader")!;
    expect(listed).toMatchObject({ scopes: ["instances:read"], instance_ids: null });
    expect(Date.parse(listed.expires_at!) - before).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(Date.parse(listed.expires_at!) - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    expect((await gpu("keys", "ls")).stdout).toContain(`${listed.id}\treader\t${listed.prefix}\tinstances:read\tall\t${listed.expires_at}\t`);

    const asReader = { ...env, GPU_API_KEY: key };
    expect(await runGpu(["ls", "--json"], asReader)).toMatchObject({ code: 0 });
    const launch = await runGpu(["launch", "--gpu-model", "rtx4090", "--template", "pytorch"], asReader);
    expect(launch).toMatchObject({ code: 1, stdout: "" });
    expect(launch.stderr).toContain("it needs the scope instances:write (forbidden, HTTP 403)");
    const wider = await runGpu(["keys", "create", "--scope", "instances:write"], asReader);
    expect(wider).toMatchObject({ code: 1, stderr: expect.stringContaining("it needs the scope account:write (forbidden, HTTP 403)") });
    expect(await gpu("keys", "create", "--expires", "2w")).toMatchObject({ code: 2, stderr: expect.stringContaining("must be a lifetime such as 12h, 30d or 1y") });
  });

  it("keys revoke needs --yes in a pipe; with it the key's next request is refused", async () => {
    const key = (await gpu("keys", "create", "--name", "to-revoke")).stdout.trim();
    const id = (await keys()).items.find((k) => k.name === "to-revoke")!.id;
    expect(await gpu("keys", "revoke", id)).toEqual({ code: 1, stdout: "", stderr: `error: revoking ${id} cannot be undone: pass --yes to confirm\n` });
    const revoked = await gpu("keys", "revoke", id, "--yes", "--json");
    expect(revoked.code).toBe(0);
    expect((JSON.parse(revoked.stdout) as { items: { id: string }[] }).items.map((k) => k.id)).not.toContain(id);
    const refused = await runGpu(["balance"], { ...env, GPU_API_KEY: key });
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/\(unauthorized, HTTP 401\)\n$/) });
    expect(await gpu("keys", "revoke", id, "--yes")).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_found, HTTP 404)") });
  });

  it("ledger prints pages newest first; --json is the API's page; --all follows next_cursor to the first entry", async () => {
    for (const amount of [1_000_000, 2_000_000, 3_000_000]) {
      const credited = await fetch(`${stack.baseUrl}/admin/v1/accounts/${stack.setup.account.id}/credits`, {
        method: "POST",
        headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ amount_micros: amount, note: `top-up ${amount}` }),
      });
      expect(credited.status).toBe(200);
    }
    const page = JSON.parse((await gpu("ledger", "--limit", "2", "--json")).stdout) as { items: { id: number; note: string }[]; next_cursor: string };
    expect(page).toEqual(await ok(stack.client.GET("/v1/billing/ledger", { params: { query: { limit: 2 } } })));
    expect(page.items.map((e) => e.note)).toEqual(["top-up 3000000", "top-up 2000000"]);
    const text = await gpu("ledger", "--limit", "2");
    expect(text.stdout.split("\n")[0]).toMatch(/^\S+\tcredit\t\$3\.00\t\$\d+\.\d{2,6}\t\ttop-up 3000000$/);
    const all = (await gpu("ledger", "--limit", "2", "--all", "--json")).stdout.trim().split("\n").map((line) => JSON.parse(line) as typeof page);
    const ids = all.flatMap((p) => p.items.map((e) => e.id));
    expect(all.at(-1)!.next_cursor).toBeNull();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(await gpu("ledger", "--limit", "0")).toMatchObject({ code: 1, stderr: expect.stringContaining("limit: must be an integer from 1 to 200 (invalid, HTTP 400)") });
  });

  it("audit prints who changed what, newest first, narrowed by --actor and --action; --json is the API's page; a bad limit is refused", async () => {
    expect((await gpu("keys", "create", "--name", "audited")).code).toBe(0);
    const id = (await keys()).items.find((k) => k.name === "audited")!.id;
    await gpu("keys", "revoke", id, "--yes");
    const page = JSON.parse((await gpu("audit", "--action", "key", "--limit", "2", "--json")).stdout) as { items: { action: string; target: { id: string } }[] };
    expect(page).toEqual(await ok(stack.client.GET("/v1/audit-log", { params: { query: { action: "key", limit: 2 } } })));
    expect(page.items.map((e) => [e.action, e.target.id])).toEqual([["key.revoke", id], ["key.create", id]]);
    const text = await gpu("audit", "--action", "key.revoke", "--limit", "1");
    expect(text.stdout).toMatch(new RegExp(`^\\S+\\tkey [^\\t]+\\tkey\\.revoke\\t${id}\\t"audited" \\(gpk_[^)]+\\)\\t[^\\t]*\\n$`));
    const operator = JSON.parse((await gpu("audit", "--actor", "operator", "--json")).stdout) as { items: { actor: { type: string } }[] };
    expect(operator.items.every((e) => e.actor.type === "operator")).toBe(true);
    expect(await gpu("audit", "--limit", "0")).toMatchObject({ code: 1, stderr: expect.stringContaining("limit: must be an integer from 1 to 200 (invalid, HTTP 400)") });
  });

  it("usage prints this month per instance (tab-separated in a pipe), --by day adds the day, --json is the API's answer; a bad month is refused", async () => {
    const report = JSON.parse((await gpu("usage", "--json")).stdout) as { items: { instance_id: string; day: string | null }[]; total_micros: number };
    const api = await ok(stack.client.GET("/v1/billing/usage", { params: { query: { group: "instance" } } }));
    expect(report.items.map((i) => i.instance_id)).toEqual(api.items.map((i) => i.instance_id));
    expect(report.items.length).toBeGreaterThan(0);
    const lines = (await gpu("usage")).stdout.trim().split("\n");
    expect(lines).toHaveLength(report.items.length);
    for (const line of lines) expect(line).toMatch(/^i-[a-z2-7]{16}\t[^\t]*\t\d+ × [\w-]+\t\d+\.\d\d\t\$\d+\.\d+$/);
    const month = new Date().toISOString().slice(0, 7);
    const byDay = (await gpu("usage", "--by", "day", "--month", month)).stdout.trim().split("\n");
    for (const line of byDay) expect(line).toMatch(new RegExp(`^${month}-\\d\\d\\ti-[a-z2-7]{16}\\t`));
    expect(JSON.parse((await gpu("usage", "--month", "2020-01", "--json")).stdout)).toEqual({ items: [], storage: [], total_micros: 0 });
    expect(await gpu("usage", "--month", "2026-13")).toMatchObject({ code: 2, stderr: expect.stringContaining("must be a month YYYY-MM") });
  });
});

describe("errors", () => {
  it("every API refusal is the API's message on stderr and exit 1", async () => {
    const cases: [string[], string][] = [
      [["launch", "--gpu-model", "rtx4090", "--template", "pytorch", "--gpu-count", "9"], "error: gpu_count: must be an integer from 1 to 8 (invalid, HTTP 400)\n"],
      [["launch", "--gpu-model", "rtx4090", "--template", "vllm"], "error: model: is required for template vllm (invalid, HTTP 400)\n"],
      [["show", "i-aaaaaaaaaaaaaaaa"], "error: no instance i-aaaaaaaaaaaaaaaa in this account (not_found, HTTP 404)\n"],
    ];
    for (const [args, stderr] of cases) expect(await gpu(...args), args.join(" ")).toEqual({ code: 1, stdout: "", stderr });
    const badKey = await runGpu(["ls"], { ...env, GPU_API_KEY: "gpk_nope" });
    expect(badKey).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .*\(unauthorized, HTTP 401\)\n$/) });
  });

  it("a command line the parser refuses exits 2 with the reason", async () => {
    const missing = await gpu("launch", "--template", "pytorch");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--gpu-model <model>' not specified");
    const notNumber = await gpu("launch", "--gpu-model", "rtx4090", "--template", "pytorch", "--gpu-count", "two");
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain("--gpu-count <n>' argument 'two' is invalid. must be a whole number");
    expect((await gpu("launch", "--env", "NOEQUALS", "--gpu-model", "x", "--template", "y")).stderr).toContain("must be NAME=VALUE");
  });

  it("launch --wait exits 1 with the reason when the instance fails on its host", async () => {
    await withContainerFolderBlocked(stack, "dev-2", async () => {
      const result = await gpu("launch", "--gpu-model", "h100-80gb", "--template", "pytorch", "--wait", "--json");
      expect(result.code).toBe(1);
      const instance = JSON.parse(result.stdout) as Instance;
      expect(instance).toMatchObject({ status: "error", status_message: expect.stringContaining("create failed") });
      expect(result.stderr.trim().split("\n").at(-1)).toBe(`error: instance ${instance.id} is error: ${instance.status_message}`);
      await ok(stack.client.DELETE("/v1/instances/{id}", { params: { path: { id: instance.id } } }));
    });
  });
});

describe("forward", () => {
  let llm: Instance;
  let forward: RunningGpu;
  let local: string;

  beforeAll(async () => {
    llm = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" });
    forward = new RunningGpu(["forward", llm.id, "8000", "--local-port", "0"], env);
    local = await forward.line((line) => line.startsWith("http://127.0.0.1:"));
  }, 60_000);

  afterAll(async () => {
    await forward?.interrupt();
  });

  it("the openai SDK talks to http://127.0.0.1:N/v1 as if the model server ran here", async () => {
    const client = new OpenAI({ baseURL: `${local}/v1`, apiKey: "not-needed" });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(["Qwen/Qwen2.5-0.5B-Instruct"]);
    const stream = await client.chat.completions.create({
      model: "Qwen/Qwen2.5-0.5B-Instruct", messages: [{ role: "user", content: "Say hello" }], stream: true, max_tokens: 5,
    });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? "");
    expect(pieces.join("").trim().split(/\s+/).length).toBe(5);
  });

  it("server-sent events pass one by one", async () => {
    const response = await fetch(`${local}/sse?n=4&interval_ms=300`);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.getReader();
    const reads: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads.push(Buffer.from(value).toString());
    }
    expect(reads.join("")).toBe([0, 1, 2, 3].map((i) => `data: {"i": ${i}}\n\n`).join(""));
    // Streamed, the events arrive as they are sent (a read each, unless the reader falls behind);
    // a forwarder that buffered the response would deliver it in one piece.
    expect(reads.length).toBeGreaterThan(1);
  });

  it("a streamed upload arrives whole; the key is added and the tool's own Authorization reaches the server", async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 7);
    const response = await fetch(`${local}/echo/up?x=%20y`, { method: "PUT", headers: { authorization: "Bearer for-the-server" }, body });
    const echo = (await response.json()) as { method: string; path: string; query: string; headers: Record<string, string>; body_bytes: number; body_sha256: string };
    expect(echo).toMatchObject({ method: "PUT", path: "/echo/up", query: "x=%20y", body_bytes: body.length });
    expect(echo.body_sha256).toBe(createHash("sha256").update(body).digest("hex"));
    expect(echo.headers.authorization).toBe("Bearer for-the-server");
    expect(JSON.stringify(echo.headers)).not.toContain(stack.key);
  });

  it("a WebSocket keeps its subprotocol, text and binary messages, and the server's close code", async () => {
    const ws = new WebSocket(`${local.replace("http", "ws")}/ws`, ["chat.v1"]);
    await once(ws, "open");
    expect(ws.protocol).toBe("chat.v1");
    const messages: [string, boolean][] = [];
    ws.on("message", (data: Buffer, isBinary) => messages.push([data.toString("hex"), isBinary]));
    ws.send("hello");
    ws.send(Buffer.from([0, 1, 255]));
    await poll(async () => messages.length, (n) => n === 2);
    expect(messages).toEqual([[Buffer.from("hello").toString("hex"), false], ["0001ff", true]]);
    ws.send("close:4001:done here");
    const [code, reason] = (await once(ws, "close")) as [number, Buffer];
    expect([code, reason.toString()]).toEqual([4001, "done here"]);
  });

  it("the service's refusals pass through: a stopped instance is 409 not_running", async () => {
    await ok(stack.client.POST("/v1/instances/{id}/stop", { params: { path: { id: llm.id } } }));
    const response = await fetch(`${local}/v1/models`);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ error: "not_running", message: expect.any(String) });
  });

  it("a local port in use and an unknown instance are clear errors", async () => {
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = String((taken.address() as { port: number }).port);
    const busy = await gpu("forward", llm.id, "8000", "--local-port", port);
    taken.close();
    expect(busy).toMatchObject({ code: 1, stderr: `error: 127.0.0.1:${port} is in use: pick another with --local-port\n` });
    const unknown = await gpu("forward", "i-aaaaaaaaaaaaaaaa", "8000", "--local-port", "0");
    expect(unknown).toMatchObject({ code: 1, stderr: "error: no instance i-aaaaaaaaaaaaaaaa in this account (not_found, HTTP 404)\n" });
  });

  it("Ctrl-C stops forwarding and exits 0", async () => {
    expect(await forward.interrupt()).toBe(0);
    await expect(fetch(`${local}/v1/models`)).rejects.toThrow();
  });
});
