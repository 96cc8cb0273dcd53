// The idle stop on the real stack, as a user meets it, in real time (5 minutes, the shortest it
// takes, for every case at once): four instances with `idle_stop_minutes: 5`, one with an interactive
// OpenSSH session open in it, one with the dashboard's terminal open, one asked for chat completions
// through the proxy, and one nobody touches. The untouched one is stopped, saying why, though the
// agent probes its port every 10 s: probes are not use, and its dev GPU reads idle all along, while
// the used one's reads use. The others run on past their limit, nothing typed in either session
// meanwhile, and their sessions still answer. The rules themselves, to the millisecond, are
// durable-objects/account/idle-stop.test.ts's.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDLE_STOP_MINUTES } from "../../durable-objects/contracts/idle-stop.ts";
import { useTempDir } from "../support/agent/temp-dir.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { missingOpenSsh, openSshRequired } from "./support/openssh.ts";
import { ShellSession, sshHome } from "./support/ssh-session.ts";
import { openTerminal, type Terminal } from "./support/terminal.ts";

const stack = useE2eStack();
const IDLE_MINUTES = IDLE_STOP_MINUTES.min;

if (missingOpenSsh && openSshRequired) {
  describe("the idle stop with SSH and a terminal open", () => {
    it("needs the OpenSSH tools", () => {
      throw new Error(`REQUIRE_OPENSSH=1 but ${missingOpenSsh}`);
    });
  });
}

describe.skipIf(missingOpenSsh !== null)("the idle stop with SSH and a terminal open", () => {
  const dir = useTempDir("gpu-ssh-home-");
  let session: ShellSession | undefined;
  let terminal: Terminal | undefined;
  let viaSsh: Instance;
  let viaTerminal: Instance;
  let untouched: Instance;
  let viaProxy: Instance;

  const launch = (label: string, template: "pytorch" | "vllm" = "pytorch") =>
    stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template, ...(template === "vllm" ? { model: "qwen2.5-0.5b-instruct" } : {}), label, idle_stop_minutes: IDLE_MINUTES });
  const chat = () => fetch(stack.proxyUrl(viaProxy, 8000, "/v1/chat/completions"), {
    method: "POST",
    headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "Qwen/Qwen2.5-0.5B-Instruct", messages: [{ role: "user", content: "Hello" }], max_tokens: 8 }),
  }).then((response) => response.text());
  const read = async (instance: Instance) => (await stack.api<Instance>("GET", `/v1/instances/${instance.id}`)).body;

  beforeAll(async () => {
    viaSsh = await launch("ssh");
    viaTerminal = await launch("terminal");
    session = new ShellSession(await sshHome(stack, dir.path), viaSsh.id);
    await session.answers();
    terminal = await openTerminal(stack, viaTerminal);
    viaProxy = await launch("proxy", "vllm");
    // Launched last, its limit comes last: by then the others have each been judged once.
    untouched = await launch("untouched", "vllm");
  }, 120_000);

  afterAll(() => {
    session?.child.kill("SIGKILL");
    terminal?.close();
  });

  it(`the untouched instance is stopped after ${IDLE_MINUTES} minutes, its GPU idle; those with an SSH session, a terminal or requests run on, the sessions still answering`, async () => {
    const untouchedUtil: (number | null)[] = [];
    const usedUtil: (number | null)[] = [];
    for (const until = Date.now() + IDLE_MINUTES * 60_000; Date.now() < until; await sleep(5_000)) {
      await chat();
      untouchedUtil.push((await read(untouched)).gpu_util_percent);
      usedUtil.push((await read(viaProxy)).gpu_util_percent);
    }
    const stopped = await poll(() => read(untouched), (instance) => instance.status === "stopped", 90_000);
    expect(stopped).toMatchObject({ desired_state: "stopped", status_message: `stopped after ${IDLE_MINUTES} min idle` });
    expect([(await read(viaSsh)).status, (await read(viaTerminal)).status, (await read(viaProxy)).status]).toEqual(["running", "running", "running"]);
    // The host's readiness probes ran all along: the untouched one's GPU never read a use, the used one's did.
    expect(untouchedUtil.filter((util) => util !== null && util > 0), `GPU readings, untouched: ${untouchedUtil.join()}; used: ${usedUtil.join()}`).toEqual([]);
    expect(usedUtil.some((util) => util !== null && util > 0)).toBe(true);
    await session!.answers();
    await terminal!.answers();
  }, (IDLE_MINUTES + 3) * 60_000);
});
