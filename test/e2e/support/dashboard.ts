// Steps a person takes in the dashboard, found by role and accessible name (or the listed test
// ids), for the browser tests; and the operator's hand where a test needs money or an account.
import { expect } from "vitest";
import type { Locator, Page } from "playwright-core";

/**
 * Leaves the dashboard and drops its cookies. Leaving first matters: the API renews the session
 * cookie on every use, so a request of the old page still in flight would set it again.
 */
export async function forgetSession(page: Page): Promise<void> {
  await page.goto("about:blank");
  await page.context().clearCookies();
}

/** Signs in through the form, whoever was signed in before. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await forgetSession(page);
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

export const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

/** Waits until a locator's text is `text` (polled, as the page updates itself). */
export async function untilText(locator: Locator, text: string, timeout = 20_000): Promise<void> {
  await expect.poll(() => locator.textContent(), { timeout, interval: 100 }).toBe(text);
}

/** The text of the element a control names in aria-describedby: what a screen reader reads after its name. */
export async function descriptionOf(page: Page, control: Locator): Promise<string> {
  const ids = (await control.getAttribute("aria-describedby")) ?? "";
  const parts = await Promise.all(ids.split(" ").filter(Boolean).map((id) => page.locator(`[id="${id}"]`).textContent()));
  return parts.join(" ");
}

/** Whether `locator` has the keyboard focus. */
export const isFocused = async (page: Page, locator: Locator) => (await locator.and(page.locator(":focus")).count()) === 1;

export async function signUpByApi(baseUrl: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 201) throw new Error(`sign-up: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { account: { id: string } }).account.id;
}

export async function creditByOperator(baseUrl: string, adminToken: string, accountId: string, amountMicros: number, note: string): Promise<void> {
  const response = await fetch(`${baseUrl}/admin/v1/accounts/${accountId}/credits`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ amount_micros: amountMicros, note }),
  });
  if (response.status !== 200) throw new Error(`credit: ${response.status} ${await response.text()}`);
}

export const uniqueEmail = (tag: string) => `${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
