// Teams in a real browser against the real stack, the owner in one browser and each invited person in
// another: a developer invited on the Members page joins by the link with a password of their own,
// launches, is offered neither Billing's "Add funds" nor Members, and once the owner removes them their
// next click is refused; a person with an account of their own joins as a viewer, sees the account's
// instances and is offered nothing that changes them, and the header's switcher moves between the two
// accounts; a revoked invitation's link joins no one.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumRequired, hasChromium, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { forgetSession, nav, signIn, signUpByApi, uniqueEmail, untilText } from "./support/dashboard.ts";
import { startE2eStack, type E2eStack } from "./support/e2e-stack.ts";

const PASSWORD = "a long passphrase";
/** Every button by which an instance's page changes the instance or reaches into it. */
const INSTANCE_CHANGES = ["Stop", "Start", "Destroy", "Rename", "Open", "Terminal", "Save now"];

/** Invites `email` with `role` on the Members page and answers the link it shows. */
async function invite(page: Page, email: string, role: string): Promise<string> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption(role);
  await page.getByRole("button", { name: "Invite" }).click();
  const link = page.getByTestId("invitation-url");
  await link.waitFor();
  await page.getByRole("region", { name: "Invitation link" }).getByRole("button", { name: "Copy" }).waitFor();
  return (await link.textContent())!;
}

/** The text of the account switcher's chosen account: its name and the role in it. */
const currentAccount = (page: Page) => page.getByLabel("Account", { exact: true }).locator("option:checked").textContent();

/** Picks, in the header's switcher, the account in which the person has `role`. */
async function switchTo(page: Page, role: string): Promise<void> {
  const switcher = page.getByLabel("Account", { exact: true });
  await switcher.selectOption((await switcher.locator("option", { hasText: `(${role})` }).getAttribute("value"))!);
  await expect.poll(() => currentAccount(page)).toMatch(new RegExp(`\\(${role}\\)$`));
}

/** The names of the buttons among `names` that the page shows. */
async function shownButtons(page: Page, names: readonly string[]): Promise<string[]> {
  const counts = await Promise.all(names.map((name) => page.getByRole("button", { name, exact: true }).count()));
  return names.filter((_, index) => counts[index]! > 0);
}

describe.skipIf(!hasChromium && !chromiumRequired)("teams in the dashboard", () => {
  let stack: E2eStack;
  let ownerBrowser: Browser;
  let otherBrowser: Browser;
  let owner: Page;
  let base: string;
  let instanceId: string;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${MISSING_CHROMIUM}`);
    // Payments on (nothing reaches Stripe: no one pays here), so that "Add funds" is there to be withheld.
    [stack, ownerBrowser, otherBrowser] = await Promise.all([
      startE2eStack({ AUTH_RATE_LIMIT_PER_MIN: "1000", STRIPE_SECRET_KEY: "sk_test_teams", STRIPE_WEBHOOK_SECRET: "whsec_teams", STRIPE_API_URL: "http://127.0.0.1:9" }),
      launchBrowser(),
      launchBrowser(),
    ]);
    base = stack.baseUrl;
    owner = await ownerBrowser.context.newPage();
    await signIn(owner, base, stack.setup.account.email, stack.setup.account.password);
  }, 120_000);

  afterAll(async () => {
    await otherBrowser?.close();
    await ownerBrowser?.close();
    await stack?.stop();
  });

  it("an invited developer joins, launches, is offered neither Add funds nor Members, and is refused from their next click once removed", async () => {
    // The owner pays and manages the account's people.
    await nav(owner, "Billing").click();
    await owner.getByRole("button", { name: "Add funds" }).waitFor();
    await nav(owner, "Members").click();
    const email = uniqueEmail("developer");
    const link = await invite(owner, email, "developer");
    expect(link).toMatch(new RegExp(`^${base}/invite#gpv_`));
    await owner.getByTestId("invitation-row").filter({ hasText: email }).waitFor();

    // The developer, in a browser of their own, sets a password and is in the account.
    const developer = await otherBrowser.context.newPage();
    await developer.goto(link);
    await developer.getByLabel("Password").fill(PASSWORD);
    await developer.getByRole("button", { name: "Create account and join" }).click();
    await developer.waitForURL(`${base}/`);
    expect(await currentAccount(developer)).toMatch(/\(developer\)$/);

    // They read billing but add no funds, and the Members page is not theirs, by link or by address.
    expect(await nav(developer, "Members").count()).toBe(0);
    await nav(developer, "Billing").click();
    await developer.getByTestId("ledger-row").first().waitFor();
    expect(await developer.getByRole("button", { name: "Add funds" }).count()).toBe(0);
    await developer.goto(`${base}/settings/members`);
    await untilText(developer.getByRole("heading", { level: 1 }), "Not for your role");

    // They launch, from the Launch page.
    await nav(developer, "Launch").click();
    await developer.getByLabel("GPU", { exact: true }).selectOption("rtx4090");
    await developer.getByLabel("Template").selectOption({ label: "PyTorch + Jupyter" });
    await developer.getByRole("button", { name: "Launch", exact: true }).click();
    await developer.waitForURL(/\/instances\/i-[a-z2-7]{16}$/);
    instanceId = developer.url().split("/").at(-1)!;
    await untilText(developer.getByTestId("instance-status"), "running", 60_000);

    // The owner sees them among the members, with their role, and removes them once asked.
    await owner.reload();
    const row = owner.getByTestId("member-row").filter({ hasText: email });
    expect(await row.getByRole("combobox", { name: `Role of ${email}` }).inputValue()).toBe("developer");
    expect(await owner.getByTestId("invitation-row").filter({ hasText: email }).count()).toBe(0);
    await row.getByRole("button", { name: "Remove" }).click();
    await owner.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
    await row.waitFor({ state: "detached" });

    // The developer's page still shows Stop; clicking it is refused, in the API's words, and nothing stops.
    const actions = developer.getByRole("group", { name: "Instance actions" });
    await actions.getByRole("button", { name: "Stop" }).click();
    await expect.poll(() => actions.getByRole("alert").textContent()).toMatch(/not a member of this account|belong to no account/);
    const instance = await stack.api<{ status: string }>("GET", `/v1/instances/${instanceId}`);
    expect(instance.body.status).toBe("running");
    // Opened again, the dashboard says they belong to no account.
    await developer.reload();
    await untilText(developer.getByRole("heading", { level: 1 }), "No account");
  }, 150_000);

  it("a person with an account of their own joins as a viewer: sees the instances, is offered no change, and switches between the two", async () => {
    const email = uniqueEmail("viewer");
    await signUpByApi(base, email, PASSWORD);
    await nav(owner, "Members").click();
    const link = await invite(owner, email, "viewer");

    // Signed in already, they join with one click.
    const viewer = await otherBrowser.context.newPage();
    await signIn(viewer, base, email, PASSWORD);
    expect(await currentAccount(viewer)).toMatch(/\(owner\)$/);
    await viewer.goto(link);
    await viewer.getByRole("button", { name: "Join" }).click();
    await viewer.waitForURL(`${base}/`);
    expect(await currentAccount(viewer)).toMatch(/\(viewer\)$/);

    // No Launch and no Members in the navigation; the launch page by address is not theirs.
    await nav(viewer, "Instances").waitFor();
    expect(await nav(viewer, "Launch").count()).toBe(0);
    expect(await nav(viewer, "Members").count()).toBe(0);
    await viewer.goto(`${base}/launch`);
    await untilText(viewer.getByRole("heading", { level: 1 }), "Not for your role");

    // The account's instance is listed and shown, with nothing to press that changes it.
    await nav(viewer, "Instances").click();
    const row = viewer.getByTestId("instance-row").filter({ hasText: instanceId });
    await row.waitFor();
    expect(await viewer.getByRole("link", { name: "Launch an instance" }).count()).toBe(0);
    await row.getByRole("link").first().click();
    await untilText(viewer.getByTestId("instance-status"), "running");
    await viewer.getByTestId("event").first().waitFor();
    expect(await shownButtons(viewer, INSTANCE_CHANGES)).toEqual([]);

    // Nor on the other pages: keys, SSH keys, volumes, webhooks, billing.
    const offered: Record<string, string[]> = {};
    for (const [page, buttons] of [
      ["API keys", ["Create key", "Revoke"]],
      ["SSH keys", ["Add key", "Remove"]],
      ["Volumes", ["Create volume", "Delete"]],
      ["Webhooks", ["Add endpoint", "Delete", "Disable", "Send test"]],
      ["Billing", ["Add funds"]],
    ] as const) {
      await nav(viewer, page).click();
      await untilText(viewer.getByRole("heading", { level: 1 }), page);
      offered[page] = await shownButtons(viewer, buttons);
    }
    expect(offered).toEqual({ "API keys": [], "SSH keys": [], Volumes: [], Webhooks: [], Billing: [] });

    // Their own account, picked in the switcher: Launch is back, and the team's instance is not in it.
    await switchTo(viewer, "owner");
    await nav(viewer, "Launch").waitFor();
    await nav(viewer, "Instances").click();
    await viewer.getByText("No instances yet.").waitFor();
    // And back to the team's: the instance again, and no Launch.
    await switchTo(viewer, "viewer");
    await viewer.getByTestId("instance-row").filter({ hasText: instanceId }).waitFor();
    expect(await nav(viewer, "Launch").count()).toBe(0);
  }, 120_000);

  it("a revoked invitation's link joins no one", async () => {
    await nav(owner, "Members").click();
    const email = uniqueEmail("revoked");
    const link = await invite(owner, email, "developer");
    const pending = owner.getByTestId("invitation-row").filter({ hasText: email });
    await pending.getByRole("button", { name: "Revoke" }).click();
    await pending.waitFor({ state: "detached" });

    const stranger = await otherBrowser.context.newPage();
    await forgetSession(stranger);
    await stranger.goto(link);
    await stranger.getByLabel("Password").fill(PASSWORD);
    await stranger.getByRole("button", { name: "Create account and join" }).click();
    await expect.poll(() => stranger.getByRole("alert").textContent()).toMatch(/invitation is not valid/);
    expect(stranger.url()).toBe(link);
  }, 60_000);
});
