// The idle stop on the real stack, in real time (5 minutes, the shortest it takes): three instances
// with `idle_stop_minutes: 5`, one with an interactive OpenSSH session open in it, one with the
// dashboard's terminal open, one nobody touches. The untouched one is stopped, saying why; the two
// with a session open run on past their limit, nothing typed in either meanwhile, and their sessions
// still answer. The rules themselves, to the millisecond, are durable-objects/account/idle-stop.test.ts's;
// idle-stop-dev-gpu.test.ts has an instance kept by proxied requests.
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

  const launch = (label: string) =>
    stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", label, idle_stop_minutes: IDLE_MINUTES });
  const read = async (instance: Instance) => (await stack.api<Instance>("GET", `/v1/instances/${instance.id}`)).body;

  beforeAll(async () => {
    viaSsh = await launch("ssh");
    viaTerminal = await launch("terminal");
    session = new ShellSession(await sshHome(stack, dir.path), viaSsh.id);
    await session.answers();
    terminal = await openTerminal(stack, viaTerminal);
    // Launched last, its limit comes last: by then the others have each been judged once.
    untouched = await launch("untouched");
  }, 120_000);

  afterAll(() => {
    session?.child.kill("SIGKILL");
    terminal?.close();
  });

  it(`the untouched instance is stopped after ${IDLE_MINUTES} minutes; those with an SSH session or a terminal open run on, both still answering`, async () => {
    await sleep(IDLE_MINUTES * 60_000);
    const stopped = await poll(() => read(untouched), (instance) => instance.status === "stopped", 90_000);
    expect(stopped).toMatchObject({ desired_state: "stopped", status_message: `stopped after ${IDLE_MINUTES} min idle` });
    expect([(await read(viaSsh)).status, (await read(viaTerminal)).status]).toEqual(["running", "running"]);
    await session!.answers();
    await terminal!.answers();
  }, (IDLE_MINUTES + 3) * 60_000);
});
