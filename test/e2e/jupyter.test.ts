// A real app behind the apps origin: Debian's Jupyter (jupyter-notebook, python3-ipykernel) as a
// pytorch instance's process (the dev agent's DEV_JUPYTER=1), opened from the dashboard in Chromium
// on its own origin. A notebook made in its UI runs `print(6*7)`, and 42 comes back over the
// kernel's WebSocket through the bridge. Without Jupyter or Chromium the suite is skipped, saying
// why; REQUIRE_JUPYTER=1 (and REQUIRE_CHROMIUM=1) makes that a failure.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page, WebSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { signIn, untilText } from "./support/dashboard.ts";
import { poll, startE2eStack, type E2eStack, type Instance } from "./support/e2e-stack.ts";

const PYTHON3_KERNEL = "/usr/share/jupyter/kernels/python3/kernel.json";
const hasJupyter = (() => {
  try {
    execFileSync("jupyter", ["notebook", "--version"], { stdio: "ignore" });
    // The Python 3 kernel's spec, which python3-ipykernel installs.
    return existsSync(PYTHON3_KERNEL);
  } catch {
    return false;
  }
})();
const MISSING_JUPYTER = "no jupyter notebook with ipykernel: apt-get install jupyter-notebook python3-ipykernel (as .ci/run's provisioning does)";
const missing = !hasJupyter ? MISSING_JUPYTER : !hasChromium ? MISSING_CHROMIUM : null;

if (missing && (process.env.REQUIRE_JUPYTER === "1" || (!hasChromium && chromiumRequired))) {
  describe("the real Jupyter behind the apps origin", () => {
    it("needs Jupyter and Chromium", () => {
      throw new Error(`REQUIRE_JUPYTER=1 or REQUIRE_CHROMIUM=1 but ${missing}`);
    });
  });
}

describe.skipIf(missing !== null)(`the real Jupyter behind the apps origin${missing ? ` (skipped: ${missing})` : ""}`, () => {
  let stack: E2eStack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startE2eStack({}, { DEV_JUPYTER: "1" }), launchBrowser()]);
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("opened from the dashboard on its own origin, a new notebook prints 6*7: 42 over the kernel's WebSocket", async () => {
    const created = await stack.api<Instance>("POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", label: "real jupyter" });
    expect(created.status).toBe(201);
    // Ready: Jupyter's own /api answers the readiness probe.
    await poll(async () => (await stack.api<Instance>("GET", `/v1/instances/${created.body.id}`)).body, (i) => i.ports[0]?.ready === true, 60_000);
    const id = created.body.id;
    const appOrigin = `http://${id}-8888.${stack.appsDomain}`;

    await signIn(page, stack.baseUrl, stack.setup.account.email, stack.setup.account.password);
    await page.goto(`${stack.baseUrl}/instances/${id}`);
    await untilText(page.getByTestId("instance-status"), "running");
    const [tree] = await Promise.all([
      page.context().waitForEvent("page"),
      page.getByTestId("port").filter({ hasText: "8888" }).getByRole("button", { name: "Open" }).click(),
    ]);
    // Jupyter answers / with a redirect to its file tree, which the browser follows on the app's origin.
    await tree.waitForURL(`${appOrigin}/tree?`);
    expect(await tree.title()).toBe("Home Page - Select or create a notebook");

    // New > Python 3: Jupyter opens the notebook in a tab of its own, whose WebSockets are watched from its start.
    const kernelFrames: string[] = [];
    const kernelSockets: WebSocket[] = [];
    page.context().once("page", (opened) => opened.on("websocket", (socket) => {
      kernelSockets.push(socket);
      socket.on("framereceived", ({ payload }) => kernelFrames.push(String(payload)));
    }));
    await tree.locator("#new-dropdown-button").click();
    const [notebook] = await Promise.all([page.context().waitForEvent("page"), tree.locator("#kernel-python3 a").click()]);
    await notebook.waitForURL(new RegExp(`^${appOrigin}/notebooks/Untitled\\d*\\.ipynb`));
    const name = decodeURIComponent(new URL(notebook.url()).pathname.split("/").pop()!);
    await notebook.locator("#kernel_indicator_icon.kernel_idle_icon").waitFor({ timeout: 30_000 });
    expect(kernelSockets.map((socket) => socket.url()).find((url) => url.includes("/api/kernels/"))).toMatch(new RegExp(`^ws://${id}-8888\\.${stack.appsDomain.replace(".", "\\.")}/api/kernels/[0-9a-f-]+/channels`));

    await notebook.locator(".code_cell .CodeMirror").first().click();
    await notebook.keyboard.type("print(6*7)");
    await notebook.keyboard.press("Shift+Enter");
    await untilText(notebook.locator(".code_cell .output_subarea").first(), "42\n", 30_000);
    // The output came from the kernel, over the WebSocket the bridge carries.
    expect(kernelFrames.some((frame) => frame.includes('"name": "stdout"') && frame.includes('"text": "42\\n"'))).toBe(true);

    // The notebook is a file in the instance's own data folder, where the local runtime keeps it.
    expect(existsSync(join(stack.stateDir, "agents", "dev-1", "containers", id, "data", name))).toBe(true);
  }, 120_000);
});
