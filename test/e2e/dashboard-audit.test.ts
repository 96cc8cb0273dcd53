// The audit log in a real browser against the real stack: a person launches from the Launch page and
// makes an API key on the keys page, and the Audit log page shows both at once, newest first, as
// theirs, narrowed by its filter; the operator's credit is there as the operator's.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { creditByOperator, nav, signIn, signUpByApi, uniqueEmail } from "./support/dashboard.ts";
import { startE2eStack, type E2eStack } from "./support/e2e-stack.ts";

const PASSWORD = "a long passphrase";

describe.skipIf(!hasChromium && !chromiumRequired)("the audit log in the dashboard", () => {
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

  it("shows the launch and the key creation that just happened, by the person who made them", async () => {
    const base = stack.baseUrl;
    const email = uniqueEmail("audited");
    const accountId = await signUpByApi(base, email, PASSWORD);
    await creditByOperator(base, stack.adminToken, accountId, 10_000_000, "trial");
    await signIn(page, base, email, PASSWORD);

    await nav(page, "Launch").click();
    await page.getByLabel("GPU", { exact: true }).selectOption("rtx4090");
    await page.getByLabel("Template").selectOption({ label: "PyTorch + Jupyter" });
    await page.getByLabel("Label", { exact: true }).fill("audited-run");
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await page.waitForURL(/\/instances\/i-[a-z2-7]{16}$/);
    const instanceId = page.url().split("/").at(-1)!;

    await nav(page, "API keys").click();
    await page.getByLabel("Key name").fill("audited-key");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText("audited-key").first().waitFor();

    await nav(page, "Audit log").click();
    const rows = page.getByTestId("audit-row");
    await rows.filter({ hasText: "key.create" }).waitFor();
    const cells = async (index: number) => (await rows.nth(index).getByRole("cell").allTextContents()).map((text) => text.trim());
    const [keyRow, launchRow] = [await cells(0), await cells(1)];
    expect(keyRow.slice(1, 3)).toEqual([email, "key.create"]);
    expect(keyRow[4]).toContain('"audited-key"');
    expect(launchRow.slice(1, 4)).toEqual([email, "instance.launch", instanceId]);
    expect(launchRow[4]).toContain('"audited-run"');
    expect(await rows.filter({ hasText: "balance.credit" }).getByRole("cell").nth(1).textContent()).toBe("operator");

    await page.getByLabel("Action").fill("instance");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await rows.getByRole("link", { name: instanceId }).click();
    await page.waitForURL(`${base}/instances/${instanceId}`);
    await page.getByRole("button", { name: "Destroy" }).waitFor();
  });
});
