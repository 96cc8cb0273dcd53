// Budgets on the real stack, in real time: a budget with `stop` reached while an instance runs stops it
// (the settlement's alarm comes when the budget would be reached) and the next launch is refused with
// 402 budget_exceeded; and in a real browser, a budget set on the billing page whose month is at 80 %
// of it shows the banner saying so. The rules themselves, to the micro-dollar on a frozen clock, are
// durable-objects/account/money/budgets.test.ts's.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { nav, signIn } from "./support/dashboard.ts";
import { poll, startE2eStack, type E2eStack, type Instance } from "./support/e2e-stack.ts";

/** Two H100s: $5.98 an hour, about 1,660 micro-dollars a second. */
const BURNER = { gpu_model: "h100-80gb", gpu_count: 2, template: "pytorch" } as const;

interface Me {
  account: { monthly_budget_micros: number | null; budget_action: string };
  month_spend_micros: number;
}

let stack: E2eStack;
let browser: Browser | undefined;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startE2eStack({ AUTH_RATE_LIMIT_PER_MIN: "1000" }), hasChromium ? launchBrowser() : undefined]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const me = async () => (await stack.api<Me>("GET", "/v1/me")).body;
const read = async (id: string) => (await stack.api<Instance>("GET", `/v1/instances/${id}`)).body;

describe("a budget on the real stack", () => {
  it("a budget with stop reached mid-run stops the instance, and the next launch is refused", async () => {
    const running = await stack.launchRunning(BURNER);
    // About three seconds of it from here.
    const budget = (await me()).month_spend_micros + 5_000;
    const set = await stack.api<Me>("PATCH", "/v1/account", { monthly_budget_micros: budget, budget_action: "stop" });
    expect(set.status).toBe(200);
    expect(set.body.account).toMatchObject({ monthly_budget_micros: budget, budget_action: "stop" });

    const stopped = await poll(() => read(running.id), (instance) => instance.status === "stopped", 30_000);
    expect(stopped.status_message).toBe("stopped: the account's monthly budget is reached");
    expect((await me()).month_spend_micros).toBeGreaterThanOrEqual(budget);

    const refused = await stack.api<{ error: string; message: string }>("POST", "/v1/instances", BURNER);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe("budget_exceeded");
    expect(refused.body.message).toContain(`monthly_budget_micros ${budget} is reached`);
    const start = await stack.api("POST", `/v1/instances/${running.id}/start`);
    expect([start.status, start.body.error]).toEqual([402, "budget_exceeded"]);

    expect((await stack.api("PATCH", "/v1/account", { monthly_budget_micros: null })).status).toBe(200);
    expect((await stack.api("DELETE", `/v1/instances/${running.id}`)).status).toBe(204);
  }, 90_000);
});

describe.skipIf(!hasChromium && !chromiumRequired)("the budget in the dashboard", () => {
  let page: Page;

  it("a budget set on the billing page at 80 % of this month's spend shows the banner on every page", async () => {
    if (!browser) throw new Error(`REQUIRE_CHROMIUM=1 but ${MISSING_CHROMIUM}`);
    // At least $0.04 spent, so that a budget in whole cents can sit between 80 and 100 % of it.
    const burning = await stack.launchRunning(BURNER);
    await poll(me, (now) => now.month_spend_micros >= 45_000, 60_000);
    expect((await stack.api("DELETE", `/v1/instances/${burning.id}`)).status).toBe(204);
    const spent = (await me()).month_spend_micros;
    const budget = (Math.floor(spent / 10_000) + 1) * 10_000;

    page = await browser.context.newPage();
    await signIn(page, stack.baseUrl, stack.setup.account.email, stack.setup.account.password);
    expect(await page.getByTestId("budget-banner").count()).toBe(0);
    await nav(page, "Billing").click();
    await page.getByLabel("Monthly budget").fill((budget / 1_000_000).toFixed(2));
    await page.getByLabel("When reached").selectOption({ label: "Stop instances" });
    await page.getByRole("button", { name: "Save budget" }).click();
    await page.getByRole("status").filter({ hasText: "Budget saved" }).waitFor();

    const banner = page.getByTestId("budget-banner");
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/^80 % of the monthly budget reached: \$0\.\d\d of the \$0\.\d\d monthly budget spent this month\. At 100 % running instances are stopped/);
    expect((await me()).account).toMatchObject({ monthly_budget_micros: budget, budget_action: "stop" });
    await nav(page, "Instances").click();
    await banner.waitFor();
  }, 120_000);
});
