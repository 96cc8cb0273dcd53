// The agent keeping its tenant firewall on a real engine (podman, as root, like CI) and the machine's
// real nftables: the table deleted (what an nftables restart's `flush ruleset` does to it) or one rule
// altered in place, name and verdict kept. Each time the host turns degraded with the reason, the
// running instance has no network at all (it cannot reach the host, which it could with the table
// gone, and the host cannot reach it) until the agent has run firewall.sh again, then it is back and
// the host healthy. Putting the table back is held until the test has looked; a last case lets it run.
// Where firewall.sh cannot run, or the engine cannot be reached, the reason says so.
// Holds the machine-wide firewall test lock throughout and leaves the table as firewall.sh writes it.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:net";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { execIn } from "../../test/support/agent/docker-exec.ts";
import { lockFirewall } from "../../test/support/agent/firewall-lock.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { runHostCommand } from "../host-command.ts";
import { HostHealth } from "../host-health.ts";
import { createLogger } from "../log.ts";
import { containerName } from "../runtime/docker-container-config.ts";
import { networkName } from "../runtime/docker-network.ts";
import { DockerRuntime } from "../runtime/docker-runtime.ts";
import { DEFAULT_NETWORK_POOL } from "../runtime/subnet-pool.ts";
import { applyFirewall, firewallScript } from "./firewall-script.ts";
import { NFT_LIST_ARGS, packetsOf, readTable } from "./nft-table.ts";
import { firewallProblem } from "./rules-check.ts";
import { followRulesetChanges } from "./ruleset-monitor.ts";
import { watchFirewall, type FirewallWatch } from "./rules-watch.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const FIX = "(fix: run firewall.sh as root (install.sh does, and the systemd unit runs it before every start))";
const OFF = "running instances are off the network until it is back";
const sh = (script: string) => promisify(execFile)("bash", ["-c", script]);
const table = async () => readTable(await runHostCommand("nft", NFT_LIST_ARGS));
const refusedHost = async () => {
  const read = await table();
  if (!read.ok) throw new Error(read.reason);
  return packetsOf(read.table, "to_host", "host");
};

describe.skipIf(!process.env.DOCKER_HOST)("the agent's tenant firewall, flushed or altered on a real host", () => {
  const docker = new Docker();
  const id = randomInstanceId();
  const cacheDir = useTempDir("rules-watch-cache-");
  // A scope of its own: the bridges taken down are this file's instance's, never another test's.
  let runtime: DockerRuntime;
  let watch: FirewallWatch;
  let unlockFirewall: () => Promise<void>;
  let hostService: Server;
  const hostServiceConnections: string[] = [];
  const health = new HostHealth();
  const healthSeen: string[] = [];
  /** While set, the agent's firewall.sh run waits for it: the test looks at the host without its table. */
  let held: Promise<void> | null = null;
  let release = () => {};
  let restores = 0;

  beforeAll(async () => {
    unlockFirewall = await lockFirewall();
    await applyFirewall(runHostCommand, firewallScript(), DEFAULT_NETWORK_POOL);
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker, scope: `rules-watch-${process.pid}` });
    await runtime.create(testSpec(id, { image: TEST_IMAGE, ports: [8080], gpu_indices: [] }), () => {});
    await runtime.start(id);
    hostService = createServer((socket) => {
      hostServiceConnections.push(socket.remoteAddress ?? "");
      socket.end("host secret\n");
    });
    await new Promise<void>((resolve) => hostService.listen(0, "::", resolve));
    health.onChange((degraded) => healthSeen.push(degraded));
    watch = watchFirewall({
      run: runHostCommand, pool: DEFAULT_NETWORK_POOL, health, log: createLogger(() => {}),
      restore: async () => {
        restores++;
        await held;
        return applyFirewall(runHostCommand, firewallScript(), DEFAULT_NETWORK_POOL);
      },
      setNetworksUp: (up) => runtime.setNetworksUp(up),
      followChanges: (onChange) => followRulesetChanges(onChange, createLogger(() => {})),
      // Never within a test: each repair here is one nft reported.
      intervalMs: 3_600_000,
    });
    await watch.check();
  }, 120_000);
  afterAll(async () => {
    watch?.close();
    hostService?.close();
    await runtime?.destroy(id);
    await runtime?.close();
    await applyFirewall(runHostCommand, firewallScript(), DEFAULT_NETWORK_POOL);
    await unlockFirewall?.();
  });

  const address = async () => (await docker.getContainer(containerName(id)).inspect()).NetworkSettings.Networks[networkName(id)]!;
  /** The instance's server, from the host (as the agent's proxy reaches it). */
  const hostReachesInstance = async () => {
    const answer = await fetch(`http://${(await address()).IPAddress}:8080/index.html`, { signal: AbortSignal.timeout(3_000) }).catch(() => null);
    return answer?.ok === true && (await answer.text()) === "gpu-rental busybox ok\n";
  };
  /** The host's own service, from the instance: refused by the table's `host` rule, reached without the table. */
  const instanceReachesHost = async () => {
    const before = hostServiceConnections.length;
    const attempt = await execIn(docker, containerName(id), ["sh", "-c", `nc -w 2 ${(await address()).Gateway} ${(hostService.address() as { port: number }).port}`]);
    return attempt.output.includes("host secret") || hostServiceConnections.length > before;
  };
  /** Holds firewall.sh, does `change`, waits until the agent has taken the instance off the network and wants to put the table back. */
  const changeHeld = async (change: string) => {
    held = new Promise((resolve) => (release = resolve));
    const before = restores;
    healthSeen.length = 0;
    await sh(change);
    await waitUntil(() => (restores > before ? true : undefined), "the agent putting the table back");
  };
  const letItRestore = () => {
    held = null;
    release();
  };
  afterEach(letItRestore);

  it("starts healthy, the instance on the network and refused the host", async () => {
    expect(health.degraded()).toBe("");
    expect(await hostReachesInstance()).toBe(true);
    expect(await instanceReachesHost()).toBe(false);
  });

  it("a deleted table: the host degraded and the instance off the network until the agent has put it back", async () => {
    await changeHeld("nft delete table inet gpu_rental");
    expect((await table()).ok).toBe(false);
    expect(health.degraded()).toBe(`tenant firewall: the nftables table inet gpu_rental is missing; ${OFF} ${FIX}`);
    expect(await instanceReachesHost()).toBe(false);
    expect(await hostReachesInstance()).toBe(false);
    letItRestore();
    await waitUntil(() => (health.degraded() === "" ? true : undefined), "the host healthy again");
    expect(healthSeen).toEqual([`tenant firewall: the nftables table inet gpu_rental is missing; ${OFF} ${FIX}`, ""]);
    expect(firewallProblem(await table(), DEFAULT_NETWORK_POOL)).toBeNull();
    expect(await waitUntil(async () => ((await hostReachesInstance()) ? true : undefined), "the instance back on the network")).toBe(true);
    const refusedBefore = await refusedHost();
    expect(await instanceReachesHost()).toBe(false);
    expect(await refusedHost()).toBeGreaterThan(refusedBefore);
  });

  it("a rule altered in place, its name and verdict kept: the same, and the rule as firewall.sh writes it again", async () => {
    const replies = (await sh("nft -a list chain inet gpu_rental to_host")).stdout.match(/comment "replies" # handle (\d+)/)?.[1];
    expect(replies).toBeDefined();
    const widened = "ct state in established,related,new counter accept";
    const reason = `tenant firewall: the table inet gpu_rental chain to_host rule 1 is (replies: ${widened}) where firewall.sh sets (replies: ct state in established,related counter accept); ${OFF} ${FIX}`;
    await changeHeld(`nft replace rule inet gpu_rental to_host handle ${replies} ct state new,established,related counter accept comment '"replies"'`);
    const altered = await table();
    expect(altered.ok && altered.table.rules.find((r) => r.comment === "replies")?.text).toBe(widened);
    expect(health.degraded()).toBe(reason);
    expect(await instanceReachesHost()).toBe(false);
    expect(await hostReachesInstance()).toBe(false);
    letItRestore();
    await waitUntil(() => (health.degraded() === "" ? true : undefined), "the host healthy again");
    expect(healthSeen).toEqual([reason, ""]);
    const restored = await table();
    expect(restored.ok && restored.table.rules.find((r) => r.comment === "replies")?.text).toBe("ct state in established,related counter accept");
    expect(await waitUntil(async () => ((await hostReachesInstance()) ? true : undefined), "the instance back on the network")).toBe(true);
    expect(await instanceReachesHost()).toBe(false);
  });

  it("where firewall.sh cannot run: the instance stays off the network, and the reason says why", async () => {
    await changeHeld("nft delete table inet gpu_rental");
    const stuck = new HostHealth();
    const noScript = watchFirewall({
      run: runHostCommand, pool: DEFAULT_NETWORK_POOL, health: stuck, log: createLogger(() => {}),
      restore: () => applyFirewall(runHostCommand, "/nonexistent/firewall.sh", DEFAULT_NETWORK_POOL),
      setNetworksUp: (up) => runtime.setNetworksUp(up), intervalMs: 3_600_000,
    });
    await noScript.check();
    noScript.close();
    expect(stuck.degraded()).toBe(
      `tenant firewall: the nftables table inet gpu_rental is missing; the agent could not put it back (firewall.sh: exit 127: bash: /nonexistent/firewall.sh: No such file or directory); ${OFF} ${FIX}`,
    );
    expect(await hostReachesInstance()).toBe(false);
    letItRestore();
    await waitUntil(() => (health.degraded() === "" ? true : undefined), "the host healthy again");
  });

  it("where the engine cannot be reached: the reason says the instances could not be taken off, then brought back", async () => {
    await changeHeld("nft delete table inet gpu_rental");
    const noEngine = new DockerRuntime({ modelCacheDir: cacheDir.path, docker: new Docker({ socketPath: "/nonexistent/engine.sock" }), scope: `rules-watch-${process.pid}` });
    const seen: string[] = [];
    const stuck = new HostHealth();
    stuck.onChange((degraded) => seen.push(degraded));
    const blind = watchFirewall({
      run: runHostCommand, pool: DEFAULT_NETWORK_POOL, health: stuck, log: createLogger(() => {}),
      restore: () => applyFirewall(runHostCommand, firewallScript(), DEFAULT_NETWORK_POOL),
      setNetworksUp: (up) => noEngine.setNetworksUp(up), intervalMs: 3_600_000,
    });
    await blind.check();
    blind.close();
    expect(seen).toEqual([
      `tenant firewall: the nftables table inet gpu_rental is missing; ${OFF} ${FIX}`,
      `tenant firewall: the nftables table inet gpu_rental is missing; taking instances off the network failed (connect ENOENT /nonexistent/engine.sock); ${OFF} ${FIX}`,
      "tenant firewall: in place, but bringing instances back on the network failed (connect ENOENT /nonexistent/engine.sock); the agent tries again",
    ]);
    expect(firewallProblem(await table(), DEFAULT_NETWORK_POOL)).toBeNull();
    letItRestore();
    await waitUntil(() => (health.degraded() === "" ? true : undefined), "the host healthy again");
  });

  it("left to itself, puts a deleted table back with no help: on nft's report of the change, not at its next timed check", async () => {
    healthSeen.length = 0;
    await sh("nft delete table inet gpu_rental");
    await waitUntil(() => (healthSeen.at(-1) === "" ? true : undefined), "the host degraded, then healthy");
    expect(healthSeen).toEqual([`tenant firewall: the nftables table inet gpu_rental is missing; ${OFF} ${FIX}`, ""]);
    expect(firewallProblem(await table(), DEFAULT_NETWORK_POOL)).toBeNull();
    expect(await waitUntil(async () => ((await hostReachesInstance()) ? true : undefined), "the instance back on the network")).toBe(true);
  });
});
