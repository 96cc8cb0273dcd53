// Volumes in a real browser against the real stack: a volume created on the Volumes page (a taken
// name refused beside its field), snapshotted, chosen in the launch form (a refused path shown in its
// group), listed on the instance's page where Save now answers (and, stopped, says why not in the
// API's words), and deleted only once asked and no instance holds it.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { descriptionOf, isFocused, nav, signIn, untilText } from "./support/dashboard.ts";
import { poll, startE2eStack, type E2eStack } from "./support/e2e-stack.ts";

describe.skipIf(!hasChromium && !chromiumRequired)("volumes in the dashboard", () => {
  let stack: E2eStack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${MISSING_CHROMIUM}`);
    [stack, browser] = await Promise.all([startE2eStack({ AUTH_RATE_LIMIT_PER_MIN: "1000" }), launchBrowser()]);
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("creates a volume, refuses its name twice, launches with it, saves it from the instance's page, and deletes it once asked and free", async () => {
    const base = stack.baseUrl;
    await signIn(page, base, stack.setup.account.email, stack.setup.account.password);

    // Created from the Volumes page in the navigation: its row says what it holds and costs.
    await nav(page, "Volumes").click();
    await page.getByLabel("Volume name").fill("datasets");
    await page.getByLabel("Size (GB)").fill("5");
    await page.getByRole("button", { name: "Create volume" }).click();
    const row = page.getByTestId("volume-row").filter({ hasText: "datasets" });
    await row.waitFor();
    const cells = await row.getByRole("cell").allTextContents();
    expect(cells.slice(0, 8)).toEqual(["datasets", "5 GB", "0 B", "0 B", "0", "never", "none", "$0.00"]);

    // The same name again: the API's refusal beside the name, and still one row.
    await page.getByLabel("Volume name").fill("datasets");
    await page.getByLabel("Size (GB)").fill("5");
    await page.getByRole("button", { name: "Create volume" }).click();
    const name = page.getByLabel("Volume name");
    await expect.poll(() => name.getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(page, name)).toBe("name: the account already has a volume named datasets a-z, 0-9 and -, starting with a letter");
    expect(await page.getByTestId("volume-row").count()).toBe(1);

    // A snapshot taken and deleted on the volume's page, the deletion asked first.
    await row.getByRole("link", { name: "datasets" }).click();
    await untilText(page.getByRole("heading", { level: 1 }), "datasets");
    await page.getByLabel("Snapshot name").fill("empty");
    await page.getByRole("button", { name: "Take snapshot" }).click();
    const snapshot = page.getByTestId("snapshot-row").filter({ hasText: "empty" });
    await snapshot.waitFor();
    await snapshot.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await snapshot.waitFor({ state: "detached" });

    // Chosen in the launch form: a path the API refuses is shown in the Volumes group, the form kept.
    await nav(page, "Launch").click();
    await page.getByLabel("GPU", { exact: true }).selectOption("rtx4090");
    await page.getByLabel("Template").selectOption({ label: "PyTorch + Jupyter" });
    const volumes = page.getByRole("group", { name: "Volumes" });
    await volumes.getByRole("checkbox", { name: "datasets" }).check();
    const path = volumes.getByLabel("Path of datasets");
    expect(await path.inputValue()).toBe("/workspace");
    await path.fill("/proc/datasets");
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await expect.poll(() => descriptionOf(page, volumes)).toMatch(/^volumes\.0\.path: cannot be \/proc, \/sys, \/dev or under them /);
    expect(page.url()).toBe(`${base}/launch`);
    await path.fill("/workspace");
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await page.waitForURL(/\/instances\/i-[a-z2-7]{16}$/);
    const id = page.url().split("/").at(-1)!;

    // The instance's page lists it; Save now answers while running, and says why not once stopped.
    const mount = page.getByTestId("instance-volume");
    await untilText(mount.getByRole("cell").first(), "datasets");
    expect((await mount.getByRole("cell").allTextContents()).slice(1, 3)).toEqual(["/workspace", "read-write"]);
    await untilText(page.getByTestId("instance-status"), "running", 60_000);
    await mount.getByRole("button", { name: "Save now" }).click();
    await page.getByRole("status").filter({ hasText: /^Saving datasets: / }).waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await untilText(page.getByTestId("instance-status"), "stopped", 60_000);
    await mount.getByRole("button", { name: "Save now" }).click();
    await untilText(
      page.getByRole("alert"),
      `volume datasets can be saved only from a running instance that has it attached read-write; its instance ${id} is stopped`,
    );

    // Attached, the volume cannot be deleted: asked, then refused in the API's words, the row kept.
    await nav(page, "Volumes").click();
    await row.getByRole("link", { name: id }).waitFor();
    await row.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    expect(await dialog.getByRole("heading").textContent()).toBe("Delete datasets?");
    expect(await isFocused(page, dialog.getByRole("button", { name: "Cancel" }))).toBe(true);
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alert").filter({ hasText: `volume datasets is attached to instance ${id}; destroy that instance first` }).waitFor();
    expect(await page.getByTestId("volume-row").count()).toBe(1);

    // Once its instance is destroyed and its host has removed the container, Delete takes it: the row goes.
    await stack.api("DELETE", `/v1/instances/${id}`);
    await untilText(row.getByRole("cell").nth(6), "none", 60_000);
    await row.getByRole("button", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await row.waitFor({ state: "detached" });
    await page.getByText("No volumes yet.").waitFor();
    expect((await stack.api("GET", "/v1/volumes/datasets")).status).toBe(404);
    await poll(() => stack.api("GET", `/v1/instances/${id}`), (answer) => answer.body.status === "destroyed");
  }, 240_000);
});
