// A real app behind the apps origin: the pytorch template's own command (launch-commands.ts), run by
// the dev agent's local runtime (DEV_JUPYTER=1) with the JupyterLab scripts/ci/jupyter.sh installs,
// opened from the dashboard in Chromium on its own origin. JupyterLab is locked by the instance
// token: it asks for it, refuses a wrong one, and takes the instance's. A notebook made from its
// launcher runs `print(6*7)`, and 42 comes back over the kernel's WebSocket through the bridge.
// Without JupyterLab or Chromium the suite is skipped, saying why; REQUIRE_JUPYTER=1 (and
// REQUIRE_CHROMIUM=1) makes that a failure.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page, WebSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JUPYTERLAB_DIR } from "../../host-agent/dev/jupyter-container.ts";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { signIn, untilText } from "./support/dashboard.ts";
import { poll, startE2eStack, type E2eStack, type Instance } from "./support/e2e-stack.ts";

const hasJupyterLab = existsSync(join(JUPYTERLAB_DIR, "bin", "jupyter-lab"));
const MISSING_JUPYTER = `no JupyterLab in ${JUPYTERLAB_DIR}: install it with scripts/ci/jupyter.sh (as root)`;
const missing = !hasJupyterLab ? MISSING_JUPYTER : !hasChromium ? MISSING_CHROMIUM : null;

if (missing && (process.env.REQUIRE_JUPYTER === "1" || (!hasChromium && chromiumRequired))) {
  describe("the template's JupyterLab behind the apps origin", () => {
    it("needs JupyterLab and Chromium", () => {
      throw new Error(`REQUIRE_JUPYTER=1 or REQUIRE_CHROMIUM=1 but ${missing}`);
    });
  });
}

describe.skipIf(missing !== null)(`the template's JupyterLab behind the apps origin${missing ? ` (skipped: ${missing})` : ""}`, () => {
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

  it("opened from the dashboard on its own origin, it asks for the instance token, refuses another, and a new notebook prints 6*7: 42 over the kernel's WebSocket", async () => {
    const created = await stack.api<Instance>("POST", "/v1/instances", { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", label: "real jupyterlab" });
    expect(created.status).toBe(201);
    // Ready: Jupyter's own /api answers the readiness probe (with no token: it says only its version).
    await poll(async () => (await stack.api<Instance>("GET", `/v1/instances/${created.body.id}`)).body, (i) => i.ports[0]?.ready === true, 90_000);
    const { id, token } = created.body;
    const appOrigin = `http://${id}-8888.${stack.appsDomain}`;

    await signIn(page, stack.baseUrl, stack.setup.account.email, stack.setup.account.password);
    await page.goto(`${stack.baseUrl}/instances/${id}`);
    await untilText(page.getByTestId("instance-status"), "running");
    const [lab] = await Promise.all([
      page.context().waitForEvent("page"),
      page.getByTestId("port").filter({ hasText: "8888" }).getByRole("button", { name: "Open" }).click(),
    ]);
    // The platform let the browser in; JupyterLab itself asks for its token.
    await lab.waitForURL((url) => url.origin === appOrigin && url.pathname === "/login" && url.searchParams.get("next")?.startsWith("/lab") === true);
    await lab.locator("#password_input").fill("gpi_not-this-instances-token");
    await lab.locator("#login_submit").click();
    await lab.getByText("Invalid credentials").waitFor();
    expect(new URL(lab.url()).pathname).toBe("/login");

    // Its WebSockets are watched from the start of the lab, a single page.
    const kernelFrames: string[] = [];
    const kernelSockets: WebSocket[] = [];
    lab.on("websocket", (socket) => {
      kernelSockets.push(socket);
      socket.on("framereceived", ({ payload }) => kernelFrames.push(String(payload)));
    });
    await lab.locator("#password_input").fill(token);
    await lab.locator("#login_submit").click();
    await lab.waitForURL((url) => url.origin === appOrigin && url.pathname === "/lab");

    // The launcher's Python 3 notebook: a new notebook, its kernel started. The toolbar's indicator
    // reads idle before the kernel has connected, so the kernel's own idle over its WebSocket is
    // what says it takes code; on a loaded machine that can be many seconds later.
    await lab.locator('.jp-LauncherCard[data-category="Notebook"]').first().click();
    await poll(async () => kernelFrames.some((frame) => /"execution_state": ?"idle"/.test(frame)), (idle) => idle, 90_000);
    const editor = lab.locator(".jp-NotebookPanel .jp-Cell .cm-content").first();
    await editor.click();
    await lab.keyboard.type("print(6*7)");
    await untilText(editor, "print(6*7)");
    await lab.keyboard.press("Shift+Enter");
    await untilText(lab.locator(".jp-NotebookPanel .jp-OutputArea-output").first(), "42\n", 60_000);
    // The output came from the kernel, over the WebSocket the bridge carries.
    expect(kernelSockets.map((socket) => socket.url()).find((url) => url.includes("/api/kernels/"))).toMatch(new RegExp(`^ws://${id}-8888\\.${stack.appsDomain.replace(".", "\\.")}/api/kernels/[0-9a-f-]+/channels`));
    expect(kernelFrames.some((frame) => /"name": ?"stdout"/.test(frame) && /"text": ?"42\\n"/.test(frame))).toBe(true);

    // The notebook is a file in the instance's own data folder, where the local runtime keeps it.
    expect(existsSync(join(stack.stateDir, "agents", "dev-1", "containers", id, "data", "Untitled.ipynb"))).toBe(true);
  }, 240_000);
});
