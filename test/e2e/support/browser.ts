// Debian's Chromium driven by playwright-core (never a downloaded browser): headless, a fresh
// profile per launch, and every background connection off, since this network refuses them.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/** Whether browser tests can run here; with REQUIRE_CHROMIUM=1 a missing browser is a failure, not a skip. */
export const hasChromium = existsSync(CHROMIUM);
export const chromiumRequired = process.env.REQUIRE_CHROMIUM === "1";
export const MISSING_CHROMIUM = `no Chromium at ${CHROMIUM}: install it with scripts/ci/chromium.sh (as root)`;

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** One browser with a profile of its own (a persistent context is how a user-data-dir is given). */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "gpu-rental-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    timezoneId: "UTC",
    locale: "en-US",
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
