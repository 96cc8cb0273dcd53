// The idle stop on the local stack, as a user meets it: an instance nobody uses is stopped once its
// idle_stop_minutes have passed, although the agent probes its port every 10 s (probes are not use:
// its dev GPUs read idle), and one used through the proxy over the same time is kept. It takes the
// shortest setting, 5 minutes, of waiting: the file's time is that wait.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { ok, type Instance } from "../../client/index.ts";
import { IDLE_STOP_MINUTES } from "../../durable-objects/contracts/idle-stop.ts";
import { useE2eStack } from "./support/e2e-stack.ts";

const stack = useE2eStack();
const MINUTE_MS = 60_000;

const read = (id: string) => ok(stack.client.GET("/v1/instances/{id}", { params: { path: { id } } }));

it(`an instance nobody uses is stopped after ${IDLE_STOP_MINUTES.min} idle minutes, its GPUs idle; one in use is kept`, async () => {
  const launch = { gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct", idle_stop_minutes: IDLE_STOP_MINUTES.min } as const;
  const [idle, used] = await Promise.all([stack.launchRunning(launch), stack.launchRunning(launch)]);
  const chat = () => fetch(stack.proxyUrl(used, 8000, "/v1/chat/completions"), {
    method: "POST",
    headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "Qwen/Qwen2.5-0.5B-Instruct", messages: [{ role: "user", content: "Hello" }], max_tokens: 8 }),
  }).then((response) => response.text());

  // The stop comes within a minute after the limit (the service writes use a minute ahead).
  const deadline = Date.now() + (IDLE_STOP_MINUTES.min + 3) * MINUTE_MS;
  let idleNow: Instance = idle;
  const idleUtil: (number | null)[] = [];
  const usedUtil: (number | null)[] = [];
  while (idleNow.status === "running" && Date.now() < deadline) {
    await chat();
    await sleep(5_000);
    idleNow = await read(idle.id);
    idleUtil.push(idleNow.gpu_util_percent);
    usedUtil.push((await read(used.id)).gpu_util_percent);
  }

  expect(idleNow, `GPU readings, idle: ${idleUtil.join()}; used: ${usedUtil.join()}`).toMatchObject({ status: "stopped", status_message: expect.stringMatching(/idle/) });
  expect((await read(used.id)).status).toBe("running");
  // The host's readiness probes ran all along: the idle one's GPU never read a use, the used one's did.
  expect(idleUtil.filter((util) => util !== null && util > 0)).toEqual([]);
  expect(usedUtil.some((util) => util !== null && util > 0)).toBe(true);
}, (IDLE_STOP_MINUTES.min + 5) * MINUTE_MS);
