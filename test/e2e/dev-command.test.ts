// `npm run dev` as a user runs it: READY line, the printed curl and dashboard work, Ctrl-C leaves
// nothing behind, and a restart on the same state reuses the bootstrap (instance tokens stay valid).
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startDev, waitForReady } from "./support/dev-process.ts";
import { freePort, poll } from "./support/e2e-stack.ts";
import { testTempDir } from "../support/agent/temp-dir.ts";

/** Processes whose command line or environment mentions `marker` (our state dir). */
function processesMentioning(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.includes(") Z ")) continue; // a zombie holds no resources; its parent is gone
      if (cmd.includes(marker)) found.push(`${pid}: ${cmd.replaceAll("\0", " ")}`);
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** The address POST .../ports/8888/open gives. */
async function openedAppUrl(instanceUrl: string, { authorization }: Record<string, string>): Promise<string> {
  const response = await fetch(`${instanceUrl}/ports/8888/open`, { method: "POST", headers: { authorization: authorization! } });
  return ((await response.json()) as { url: string }).url;
}

describe("npm run dev", () => {
  it("reaches READY, the printed curl and dashboard work, Ctrl-C stops everything, a restart reuses the state and keeps instance tokens", async () => {
    const port = await freePort();
    const stateDir = testTempDir("gpu-rental-dev-");
    const env = { PORT: String(port), DEV_STATE_DIR: stateDir, ADMIN_TOKEN: "my-admin", DEV_READY_DELAY_MS: "200" };
    const first = startDev(env, ["--fresh"]);
    expect(await waitForReady(first)).toBe(`READY http://127.0.0.1:${port}/v1`);
    // The stack gives wrangler its required secrets the way it checks for them: no warning first thing.
    expect(first.output()).not.toContain("Missing required secrets");
    const curl = first.output().split("\n").find((l) => l.trim().startsWith("curl "))!.trim();
    const [, key, url] = /-H "Authorization: Bearer (\S+)" (\S+)/.exec(curl)!;
    const gpus = await fetch(url!, { headers: { authorization: `Bearer ${key}` } });
    expect(gpus.status).toBe(200);
    // The dashboard, built before the start, at the printed address on the API's origin.
    const dashboard = /^\s+dashboard\s+(\S+)$/m.exec(first.output())?.[1];
    expect(dashboard).toBe(`http://127.0.0.1:${port}/`);
    expect(await fetch(dashboard!).then((r) => r.text())).toContain('<div id="root"></div>');
    const machines = await fetch(`http://127.0.0.1:${port}/admin/v1/machines`, { headers: { authorization: "Bearer my-admin" } });
    expect(((await machines.json()) as { items: { name: string; online: boolean }[] }).items.map((m) => [m.name, m.online]))
      .toEqual([["dev-1", true], ["dev-2", true]]);
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const launched = await fetch(`${url!.replace(/\/gpus$/, "")}/instances`, {
      method: "POST", headers: auth, body: JSON.stringify({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" }),
    });
    const instance = (await launched.json()) as { id: string; token: string };
    const instanceUrl = `http://127.0.0.1:${port}/v1/instances/${instance.id}`;
    const proxiedWithToken = () => fetch(`${instanceUrl}/proxy/8888/health`, { headers: { authorization: `Bearer ${instance.token}` } }).then((r) => r.status);
    await poll(proxiedWithToken, (status) => status === 200);
    // Its web app opens on an origin of its own under localhost:PORT, as printed.
    expect(first.output()).toContain(`http://{instance id}-{port}.localhost:${port}/`);
    expect(await openedAppUrl(instanceUrl, auth)).toMatch(new RegExp(`^http://${instance.id}-8888\\.localhost:${port}/\\?gpr_ticket=gpt_`));
    // wrangler dev's local observability stays off (scripts/dev/stack.ts): on, it would have traced
    // these requests into a store of its own beside the objects' state.
    expect(readdirSync(join(stateDir, "v3"))).not.toContain("observability");
    const saved = JSON.parse(readFileSync(join(stateDir, "dev-bootstrap.json"), "utf8")) as { instance_token_secret: string };
    expect(saved.instance_token_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    first.child.kill("SIGINT");
    const [code] = await once(first.child, "exit");
    expect(code).toBe(0);
    expect(processesMentioning(stateDir)).toEqual([]);
    expect(await fetch(url!).then(() => "answered", () => "refused")).toBe("refused");

    // APPS_DOMAIN from the environment wins.
    const second = startDev({ ...env, APPS_DOMAIN: `apps.localhost:${port}` });
    await waitForReady(second);
    expect(second.output()).toContain(key!);
    const again = await fetch(`http://127.0.0.1:${port}/admin/v1/machines`, { headers: { authorization: "Bearer my-admin" } });
    expect(((await again.json()) as { items: unknown[] }).items.length).toBe(2);
    const shown = (await (await fetch(instanceUrl, { headers: auth })).json()) as { token: string };
    expect(shown.token).toBe(instance.token);
    await poll(proxiedWithToken, (status) => status === 200);
    expect(await openedAppUrl(instanceUrl, auth)).toMatch(new RegExp(`^http://${instance.id}-8888\\.apps\\.localhost:${port}/\\?gpr_ticket=gpt_`));
    second.child.kill("SIGTERM");
    await once(second.child, "exit");
    expect(processesMentioning(stateDir)).toEqual([]);
  }, 180_000);
});
