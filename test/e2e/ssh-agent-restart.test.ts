// An SSH session open while its host's agent goes away (killed, as a crash or the OOM killer would;
// or stopped, as an upgrade restarts it, which says so first): the real OpenSSH client exits at once,
// never hangs, and once the agent is back a new `gpu ssh` works. A file of its own, on a stack of its
// own: the restarts here cannot disturb another file's tests.
import { beforeAll, describe, expect, it } from "vitest";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { runGpu } from "./support/gpu-cli.ts";
import { missingOpenSsh } from "./support/openssh.ts";
import { useTempDir } from "../support/agent/temp-dir.ts";
import { ShellSession, sshHome, writeSshConfig, type SshHome } from "./support/ssh-session.ts";

const stack = useE2eStack();
/** rtx4090 instances land on dev-1. */
const HOST = "dev-1";
/** Within this an ended session's ssh must have exited: the socket's close crosses the MachineDO at once. */
const ENDS_WITHIN_MS = 10_000;

type Shown = Instance & { machine_online: boolean };
const read = async (id: string) => (await stack.api<Shown>("GET", `/v1/instances/${id}`)).body;

/** Opens a shell in `instance`, runs `goAway` on its agent, and checks that ssh exits on its own with 255; its stderr. */
async function sessionEndsWhen(home: SshHome, instance: Instance, goAway: () => Promise<void>): Promise<string> {
  const session = new ShellSession(home, instance.id);
  await session.answers();
  await goAway();
  const code = await session.exited(ENDS_WITHIN_MS);
  expect(code, `ssh's stderr: ${session.stderr}`).toBe(255);
  return session.stderr;
}

/** The agent back, the instance running on an online host and answering: then one `gpu ssh` must work, first time. */
async function newSessionWorks(home: SshHome, instance: Instance): Promise<void> {
  stack.startAgent(HOST);
  await poll(() => read(instance.id), (i) => i.machine_online && i.status === "running");
  const health = () => fetch(stack.proxyUrl(instance, 8888, "/health"), { headers: { authorization: `Bearer ${stack.key}` } }).then((r) => r.status);
  await poll(health, (status) => status === 200);
  const again = await runGpu(["ssh", instance.id, "-i", home.keyFile, "--", "echo ok"], home.env);
  expect(again, again.stderr).toMatchObject({ code: 0, stdout: "ok\n" });
}

describe.skipIf(missingOpenSsh !== null)("an SSH session when its host's agent restarts", () => {
  const dir = useTempDir("gpu-ssh-home-");
  let home: SshHome;

  beforeAll(async () => {
    home = await sshHome(stack, dir.path);
  });

  /** A new instance, in the ssh config; the host's agent first started again if a failed test left it down. */
  const launch = async () => {
    const agent = stack.agents.get(HOST)?.process;
    if (!agent || agent.exitCode !== null || agent.signalCode !== null) {
      await stack.stopAgent(HOST);
      stack.startAgent(HOST);
      await stack.waitForMachines({ [HOST]: true });
    }
    const instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    await writeSshConfig(home);
    return instance;
  };

  it("killed: ssh exits; once the agent is back a new session works", async () => {
    const instance = await launch();
    const said = await sessionEndsWhen(home, instance, async () => {
      process.kill(stack.agents.get(HOST)!.process.pid!, "SIGKILL");
    });
    // The agent had nothing left to say; the ProxyCommand says what the service saw, then ssh sees
    // its connection end ("closed by remote host", or a broken pipe when it wrote first).
    expect(said).toContain("gpu ssh-proxy: the service ended the connection to");
    expect(said).toContain("upstream failed (WebSocket close 1011)");
    expect(said).toMatch(/closed|Broken pipe/);
    await stack.stopAgent(HOST);
    await newSessionWorks(home, instance);
  }, 90_000);

  it("stopped (SIGTERM): ssh exits with the agent's message; once the agent is back a new session works", async () => {
    const instance = await launch();
    const said = await sessionEndsWhen(home, instance, () => stack.stopAgent(HOST));
    expect(said).toContain("the host's agent is restarting: this session has ended");
    await newSessionWorks(home, instance);
  }, 90_000);
});
