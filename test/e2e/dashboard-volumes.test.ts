// Volumes in a real browser against the real stack: a volume created on the Volumes page (a taken
// name refused beside its field), snapshotted and copied into a new volume, chosen in the launch form
// (a refused path shown in its group), listed on the instance's page where Save now answers (and,
// stopped, says why not in the API's words), and deleted only once asked and no instance holds it;
// a used-up balance's deletion date shown until funds come.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { creditByOperator, descriptionOf, isFocused, nav, signIn, signUpByApi, uniqueEmail, untilText } from "./support/dashboard.ts";
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
    // Another volume, made through the API, appears by itself.
    await stack.api("POST", "/v1/volumes", { name: "models", size_gb: 1 });
    await page.getByTestId("volume-row").filter({ hasText: "models" }).waitFor();

    // A snapshot taken and deleted on the volume's page, the deletion asked first.
    await row.getByRole("link", { name: "datasets" }).click();
    await untilText(page.getByRole("heading", { level: 1 }), "datasets");
    await page.getByLabel("Snapshot name").fill("empty");
    await page.getByRole("button", { name: "Take snapshot" }).click();
    const snapshot = page.getByTestId("snapshot-row").filter({ hasText: "empty" });
    await snapshot.waitFor();
    // A new volume from it: a taken name refused beside the field, a free one made and shown.
    expect(await page.getByLabel("Snapshot", { exact: true }).inputValue()).toMatch(/^snap_/);
    const copyName = page.getByLabel("New volume name");
    await copyName.fill("datasets");
    await page.getByRole("button", { name: "Create volume from snapshot" }).click();
    await expect.poll(() => copyName.getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(page, copyName)).toMatch(/^name: the account already has a volume named datasets /);
    await copyName.fill("restored");
    await page.getByRole("button", { name: "Create volume from snapshot" }).click();
    await untilText(page.getByRole("heading", { level: 1 }), "restored");
    await page.goBack();
    await untilText(page.getByRole("heading", { level: 1 }), "datasets");
    await snapshot.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await snapshot.waitFor({ state: "detached" });

    // Chosen in the launch form: a path the API refuses is shown in the Volumes group, the form kept.
    await nav(page, "Launch").click();
    await page.getByLabel("GPU", { exact: true }).selectOption("rtx4090");
    await page.getByLabel("Template").selectOption({ label: "PyTorch + Jupyter" });
    const volumes = page.getByRole("group", { name: "Volumes" });
    await volumes.getByRole("checkbox", { name: "datasets", exact: true }).check();
    const path = volumes.getByLabel("Path of datasets");
    expect(await path.inputValue()).toBe("/workspace");
    await path.fill("/proc/datasets");
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await expect.poll(() => descriptionOf(page, volumes)).toMatch(/^volumes\.0\.path: cannot be \/proc, \/sys, \/dev or under them /);
    expect(page.url()).toBe(`${base}/launch`);
    await path.fill("/workspace");
    // A second volume, chosen and made read-only with the keyboard alone, is offered a path of its own.
    const models = volumes.getByRole("checkbox", { name: "models", exact: true });
    await models.focus();
    await page.keyboard.press("Space");
    expect(await volumes.getByLabel("Path of models").inputValue()).toBe("/volumes/models");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await isFocused(page, volumes.getByRole("checkbox", { name: "Read-only for models" }))).toBe(true);
    await page.keyboard.press("Space");
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await page.waitForURL(/\/instances\/i-[a-z2-7]{16}$/);
    const id = page.url().split("/").at(-1)!;

    // The instance's page lists both; Save now (read-write only) answers while running, and says why not once stopped.
    const mount = page.getByTestId("instance-volume").filter({ hasText: "datasets" });
    const reader = page.getByTestId("instance-volume").filter({ hasText: "models" });
    await mount.waitFor();
    expect((await mount.getByRole("cell").allTextContents()).slice(0, 3)).toEqual(["datasets", "/workspace", "read-write"]);
    expect((await reader.getByRole("cell").allTextContents()).slice(0, 3)).toEqual(["models", "/volumes/models", "read-only"]);
    expect(await reader.getByRole("button", { name: "Save now" }).count()).toBe(0);
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
    expect(await row.count()).toBe(1);

    // Once its instance is destroyed and its host has removed the container, Delete takes it: the row goes.
    await stack.api("DELETE", `/v1/instances/${id}`);
    await untilText(row.getByRole("cell").nth(6), "none", 60_000);
    await row.getByRole("button", { name: "Delete" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await row.waitFor({ state: "detached" });
    expect(await page.getByTestId("volume-row").allTextContents()).toEqual([expect.stringMatching(/^models/), expect.stringMatching(/^restored/)]);
    expect((await stack.api("GET", "/v1/volumes/datasets")).status).toBe(404);
    await poll(() => stack.api("GET", `/v1/instances/${id}`), (answer) => answer.body.status === "destroyed");
  }, 240_000);

  it("shows when a volume will be deleted once the balance is used up, with the way to add funds, until funds come", async () => {
    const base = stack.baseUrl;
    const email = uniqueEmail("grace");
    const accountId = await signUpByApi(base, email, "a long passphrase");
    await signIn(page, base, email, "a long passphrase");
    // Funded first: a volume made at a balance of zero has its deletion date from the start.
    await creditByOperator(base, stack.adminToken, accountId, 1_000_000, "credit");
    const created = await page.context().request.post(`${base}/v1/volumes`, { headers: { origin: base }, data: { name: "scratch", size_gb: 1 } });
    expect(created.status()).toBe(201);
    await nav(page, "Volumes").click();
    const row = page.getByTestId("volume-row").filter({ hasText: "scratch" });
    await row.waitFor();
    expect(await row.getByTestId("volume-deletion").count()).toBe(0);

    // A debit of the credit leaves the balance at zero: the grace starts.
    await creditByOperator(base, stack.adminToken, accountId, -1_000_000, "debit");
    const { delete_at } = (await (await page.context().request.get(`${base}/v1/volumes/scratch`)).json()) as { delete_at: string };
    const inDays = (Date.parse(delete_at) - Date.now()) / 86_400_000;
    expect(inDays).toBeGreaterThan(6.9);
    expect(inDays).toBeLessThanOrEqual(7);
    const shown = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" }).format(new Date(delete_at));
    await untilText(row.getByTestId("volume-deletion"), `To be deleted on ${shown}: the balance is used up. Add funds to keep it.`);
    await row.getByRole("link", { name: "scratch" }).click();
    await untilText(page.getByTestId("volume-deletion"), `To be deleted on ${shown}: the balance is used up. Add funds to keep it.`);

    // Funds end the grace: the date goes by itself.
    await creditByOperator(base, stack.adminToken, accountId, 5_000_000, "top-up");
    await page.getByTestId("volume-deletion").waitFor({ state: "detached" });
  });
});
