// Adding funds in a real browser: a stranger signs up with $0, adds funds on the billing page,
// pays on the Checkout page (the local stand-in of Stripe's, which sends the signed webhook), comes
// back to "Payment received" and a balance that covers a launch, and launches. No operator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeStandIn, type StripeStandIn } from "../../scripts/dev/stripe-stand-in.ts";
import { hasChromium, chromiumRequired, launchBrowser, MISSING_CHROMIUM, type Browser } from "./support/browser.ts";
import { nav, uniqueEmail, untilText } from "./support/dashboard.ts";
import { startE2eStack, type E2eStack } from "./support/e2e-stack.ts";

let stack: E2eStack;
let stripe: StripeStandIn;
let browser: Browser;

describe.skipIf(!hasChromium && !chromiumRequired)("adding funds in the dashboard", () => {
  beforeAll(async () => {
    if (!hasChromium) throw new Error(`REQUIRE_CHROMIUM=1 but ${MISSING_CHROMIUM}`);
    stripe = await startStripeStandIn({ secretKey: "sk_test_dashboard", webhookSecret: "whsec_dashboard", webhookUrl: () => `${stack.baseUrl}/v1/billing/stripe/webhook` });
    [stack, browser] = await Promise.all([
      startE2eStack({ STRIPE_SECRET_KEY: "sk_test_dashboard", STRIPE_WEBHOOK_SECRET: "whsec_dashboard", STRIPE_API_URL: stripe.url, AUTH_RATE_LIMIT_PER_MIN: "1000" }),
      launchBrowser(),
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await stripe?.stop();
  });

  it("goes from sign-up with $0 through Add funds and Checkout to Payment received and a launch", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${stack.baseUrl}/signup`);
    await page.getByLabel("Email").fill(uniqueEmail("payer"));
    await page.getByLabel("Password").fill("a long passphrase");
    await page.getByRole("button", { name: "Create account" }).click();
    await untilText(page.getByTestId("balance"), "$0.00");

    await nav(page, "Billing").click();
    await page.getByRole("button", { name: "$10", exact: true }).click();
    expect(await page.getByLabel("Amount (USD)").inputValue()).toBe("10");
    await page.getByRole("button", { name: "Add funds" }).click();
    await page.waitForURL(`${stripe.url}/pay/**`);
    await page.getByRole("button", { name: "Pay $10.00" }).click();

    await page.waitForURL(`${stack.baseUrl}/billing?payment=success**`);
    await untilText(page.getByTestId("payment-status"), "Payment received");
    await nav(page, "Overview").click();
    await untilText(page.getByTestId("balance"), "$10.00");

    await nav(page, "Launch").click();
    await page.getByLabel("GPU", { exact: true }).selectOption("rtx4090");
    await page.getByLabel("Template").selectOption({ label: "PyTorch + Jupyter" });
    await page.getByRole("button", { name: "Launch", exact: true }).click();
    await page.waitForURL(/\/instances\/i-[a-z2-7]{16}$/);
  }, 90_000);

  it("says so when the customer leaves Checkout without paying", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${stack.baseUrl}/billing?payment=cancelled`);
    await untilText(page.getByTestId("payment-status"), "Payment not completed");
  });
});
