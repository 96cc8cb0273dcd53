// `npm run dev` makes the dev login (dev@localhost and a generated password), prints it, keeps it
// across restarts, and passes the auth variables from its environment to the Worker.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startDev, waitForReady, type Dev } from "./support/dev-process.ts";
import { freePort } from "./support/e2e-stack.ts";
import { testTempDir } from "../support/agent/temp-dir.ts";

const loginLine = (dev: Dev) => /dev login\s+(\S+) \/ (\S+)/.exec(dev.output());
const keyLine = (dev: Dev) => /API key\s+(gpk_\S+)/.exec(dev.output())?.[1];

async function stop(dev: Dev): Promise<void> {
  dev.child.kill("SIGINT");
  await once(dev.child, "exit");
}

describe("npm run dev's dev login", () => {
  it("is printed, signs in, has $100, survives a restart, and AUTH_RATE_LIMIT_PER_MIN reaches the Worker", async () => {
    const stateDir = testTempDir("gpu-rental-dev-login-");
    const env = { DEV_STATE_DIR: stateDir, DEV_READY_DELAY_MS: "200", AUTH_RATE_LIMIT_PER_MIN: "4", SIGNUP_CREDIT_MICROS: "3000000" };
    let base = "";
    const login = (password: string) =>
      fetch(`${base}/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "dev@localhost", password }) });

    // Each run on a port of its own: the state, not the port, carries the dev account over.
    let port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const first = startDev({ ...env, PORT: String(port) }, ["--fresh"]);
    try {
      expect(await waitForReady(first)).toBe(`READY ${base}/v1`);
      const [, email, password] = loginLine(first)!;
      expect(email).toBe("dev@localhost");
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      const saved = JSON.parse(readFileSync(join(stateDir, "dev-bootstrap.json"), "utf8")) as { account: Record<string, string> };
      expect(saved.account).toEqual({ id: expect.stringMatching(/^acc-/), key: keyLine(first), email, password });

      const signedIn = await login(password!);
      expect(signedIn.status).toBe(200);
      expect(await signedIn.json()).toMatchObject({ account: { id: saved.account.id, email }, balance_micros: 100_000_000 });
      // The bootstrap's sign-up and this sign-in used 2 of the 4 attempts a minute.
      expect((await login("not the password at all")).status).toBe(401);
      expect((await login("not the password at all")).status).toBe(401);
      const limited = await login(password!);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    } finally {
      await stop(first);
    }

    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const second = startDev({ ...env, PORT: String(port) });
    try {
      await waitForReady(second);
      expect(loginLine(second)?.slice(1)).toEqual(loginLine(first)?.slice(1));
      expect(keyLine(second)).toBe(keyLine(first));
      const again = await login(loginLine(second)![2]!);
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ balance_micros: 100_000_000 });
    } finally {
      await stop(second);
    }
  }, 240_000);
});
