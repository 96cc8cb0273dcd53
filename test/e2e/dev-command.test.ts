// `npm run dev` as a user runs it: READY line, the printed curl and dashboard work, Ctrl-C leaves
// nothing behind, and a restart on the same state reuses the bootstrap.
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startDev, waitForReady } from "./support/dev-process.ts";
import { freePort } from "./support/e2e-stack.ts";

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

describe("npm run dev", () => {
  it("reaches READY, the printed curl and dashboard work, Ctrl-C stops everything, a restart reuses the state", async () => {
    const port = await freePort();
    const stateDir = mkdtempSync(join(tmpdir(), "gpu-rental-dev-"));
    const env = { PORT: String(port), DEV_STATE_DIR: stateDir, ADMIN_TOKEN: "my-admin", DEV_READY_DELAY_MS: "200" };
    const first = startDev(env, ["--fresh"]);
    expect(await waitForReady(first)).toBe(`READY http://127.0.0.1:${port}/v1`);
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

    first.child.kill("SIGINT");
    const [code] = await once(first.child, "exit");
    expect(code).toBe(0);
    expect(processesMentioning(stateDir)).toEqual([]);
    expect(await fetch(url!).then(() => "answered", () => "refused")).toBe("refused");

    const second = startDev(env);
    await waitForReady(second);
    expect(second.output()).toContain(key!);
    const again = await fetch(`http://127.0.0.1:${port}/admin/v1/machines`, { headers: { authorization: "Bearer my-admin" } });
    expect(((await again.json()) as { items: unknown[] }).items.length).toBe(2);
    second.child.kill("SIGTERM");
    await once(second.child, "exit");
    expect(processesMentioning(stateDir)).toEqual([]);
  }, 180_000);
});
