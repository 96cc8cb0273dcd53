// An instance stopped or destroyed while sessions are open in it: an interactive OpenSSH session ends
// at once with the agent's message and a failing status, one holding only a forwarded port (`ssh -N
// -L`) exits too, and the dashboard's terminal shows the message and closes; none of them hangs.
// The same when the container ends on its own. An SSH key removed from the account ends the session
// that authenticated with it, saying why, and only that one.
// And the key's last use, on the dashboard's SSH keys page.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { freePort, poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { hasChromium, launchBrowser } from "./support/browser.ts";
import { signIn } from "./support/dashboard.ts";
import { runCommand } from "./support/gpu-cli.ts";
import { missingOpenSsh } from "./support/openssh.ts";
import { testTempDir, useTempDir } from "../support/agent/temp-dir.ts";
import { ShellSession, sshHome, writeSshConfig, type SshHome } from "./support/ssh-session.ts";
import { openTerminal } from "./support/terminal.ts";

const stack = useE2eStack();
/** Within this an ended session's ssh must have exited: the agent ends it as the stop command arrives. */
const ENDS_WITHIN_MS = 10_000;

const launch = () => stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });

/** `ssh -N -L` to the instance's port 8888, answering through the tunnel; its exit status, or "hung". */
async function openTunnel({ env, home, keyFile }: SshHome, instance: Instance): Promise<() => Promise<number | null | "hung">> {
  const localPort = await freePort();
  const tunnel = spawn("ssh", ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
    "-N", "-L", `127.0.0.1:${localPort}:localhost:8888`, `gpu-${instance.id}`], { env, stdio: "ignore" });
  const exited = once(tunnel, "exit").then(([code]) => code as number | null);
  await poll(() => fetch(`http://127.0.0.1:${localPort}/health`).then((r) => r.status, () => 0), (status) => status === 200);
  return async () => {
    const outcome = await Promise.race([exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), ENDS_WITHIN_MS).unref())]);
    if (outcome === "hung") tunnel.kill("SIGKILL");
    return outcome;
  };
}

/**
 * The pid of `instance`'s container on the local runtime: the dev server the agent started in the
 * instance's data folder (its sessions' shells run there too, but are not the dev server).
 */
function containerProcess(instance: Instance): number {
  const data = realpathSync(join(stack.stateDir, "agents", "dev-1", "containers", instance.id, "data"));
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (readlinkSync(`/proc/${pid}/cwd`) === data && cmdline.includes("container/server.ts")) return Number(pid);
    } catch {
      // A process that ended meanwhile, or not ours to read.
    }
  }
  throw new Error(`no container process for ${instance.id} in ${data}`);
}

describe.skipIf(missingOpenSsh !== null)("sessions in an instance that goes away", () => {
  const dir = useTempDir("gpu-ssh-home-");
  let home: SshHome;

  beforeAll(async () => {
    home = await sshHome(stack, dir.path);
  });

  it("stopped: an interactive ssh exits non-zero with the agent's message; a tunnel's ssh exits too", async () => {
    const instance = await launch();
    await writeSshConfig(home);
    const session = new ShellSession(home, instance.id);
    await session.answers();
    const tunnelExit = await openTunnel(home, instance);
    expect((await stack.api("POST", `/v1/instances/${instance.id}/stop`)).status).toBe(204);
    const code = await session.exited(ENDS_WITHIN_MS);
    expect(code, session.stderr).toBe(255);
    expect(session.stderr).toContain("the instance is being stopped: this session has ended");
    expect(await tunnelExit()).toBe(255);
    await poll(() => stack.api<Instance>("GET", `/v1/instances/${instance.id}`), (r) => r.body.status === "stopped");
  }, 90_000);

  it("destroyed: an interactive ssh exits non-zero with the agent's message; the dashboard's terminal shows it and closes", async () => {
    const instance = await launch();
    await writeSshConfig(home);
    const session = new ShellSession(home, instance.id);
    await session.answers();
    const terminal = await openTerminal(stack, instance);
    expect((await stack.api("DELETE", `/v1/instances/${instance.id}`)).status).toBe(204);
    const code = await session.exited(ENDS_WITHIN_MS);
    expect(code, session.stderr).toBe(255);
    expect(session.stderr).toContain("the instance is being destroyed: this session has ended");
    const closed = await Promise.race([terminal.closed, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), ENDS_WITHIN_MS).unref())]);
    expect(closed).toMatchObject({ code: 1000, reason: expect.stringMatching(/^the shell (ended|exited)/) });
    expect(terminal.shown()).toContain("the instance is being destroyed: this session has ended");
  }, 90_000);

  it("its container ending on its own (a crash): an interactive ssh exits non-zero with the agent's message", async () => {
    const instance = await launch();
    await writeSshConfig(home);
    const session = new ShellSession(home, instance.id);
    await session.answers();
    process.kill(containerProcess(instance), "SIGKILL");
    const code = await session.exited(ENDS_WITHIN_MS);
    expect(code, session.stderr).toBe(255);
    expect(session.stderr).toContain("the instance's container ended (container process exited with signal SIGKILL): this session has ended");
    await poll(() => stack.api<Instance>("GET", `/v1/instances/${instance.id}`), (r) => r.body.status === "error");
  }, 90_000);

  it("an SSH key removed: the ssh that authenticated with it exits non-zero, saying why; another key's session goes on", async () => {
    const instance = await launch();
    await writeSshConfig(home);
    const keyIds = async () => (await stack.api<{ items: { id: string }[] }>("GET", "/v1/ssh-keys")).body.items.map((key) => key.id);
    const before = await keyIds();
    const laptop = await sshHome(stack, testTempDir("gpu-ssh-home-"));
    const laptopKey = (await keyIds()).find((id) => !before.includes(id))!;
    const doomed = new ShellSession(laptop, instance.id);
    await doomed.answers();
    const kept = new ShellSession(home, instance.id);
    await kept.answers();
    expect((await stack.api("DELETE", `/v1/ssh-keys/${laptopKey}`)).status).toBe(204);
    const code = await doomed.exited(ENDS_WITHIN_MS);
    expect(code, doomed.stderr).toBe(255);
    expect(doomed.stderr).toContain(`the service ended the connection to ${instance.id}: the SSH key was removed from the account (WebSocket close 1008)`);
    await kept.answers();
    kept.child.stdin!.end("exit\n");
    expect(await kept.exited(ENDS_WITHIN_MS)).toBe(0);
  }, 90_000);

  it.skipIf(!hasChromium)("the dashboard's SSH keys page shows when the key last opened a connection", async () => {
    const instance = await launch();
    await writeSshConfig(home);
    const ran = await runCommand("ssh", ["-F", join(home.home, ".ssh", "config"), "-i", home.keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", `gpu-${instance.id}`, "true"], home.env);
    expect(ran, ran.stderr).toMatchObject({ code: 0 });
    const keys = await poll(() => stack.api<{ items: { name: string; last_used_at: string | null }[] }>("GET", "/v1/ssh-keys"), (r) => r.body.items.every((k) => k.last_used_at !== null));
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await signIn(page, stack.baseUrl, stack.setup.account.email, stack.setup.account.password);
      await page.goto(`${stack.baseUrl}/settings/ssh-keys`);
      const row = page.getByTestId("ssh-key-row").filter({ hasText: "faults@test" });
      await row.waitFor();
      const headers = await page.locator("thead th").allTextContents();
      const lastUsed = (await row.locator("td").allTextContents())[headers.indexOf("Last used")];
      const shown = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" }).format(new Date(keys.body.items[0]!.last_used_at!));
      expect(lastUsed).toBe(shown);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
