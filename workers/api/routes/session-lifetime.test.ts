// How browser sessions end besides sign-out: 90 days after they began however much they are used,
// and all at once with POST /v1/auth/logout-all (API keys are not sessions and stay).
import { describe, expect, it } from "vitest";
import { call, callJson } from "../../../test/support/workerd/api-client.ts";
import { asBrowser, browser, signIn, signUp } from "../../../test/support/workerd/session-client.ts";
import { advanceClock } from "../../../test/support/workerd/test-clock.ts";

const DAY_MS = 24 * 3_600_000;

describe("a session's absolute lifetime", () => {
  it("ends 90 days after the session began, even one used every day (the idle limit never reached)", async () => {
    const { session } = await signUp();
    for (let day = 0; day < 89; day += 10) {
      expect((await asBrowser("GET", "/v1/me", session)).status).toBe(200);
      advanceClock(10 * DAY_MS);
    }
    // 90 days since it began: 10 since its last use.
    expect(await asBrowser("GET", "/v1/me", session)).toMatchObject({ status: 401, body: { error: "unauthorized" } });
  }, 20_000);
});

describe("POST /v1/auth/logout-all", () => {
  it("ends every session of the account, this one included, and clears the cookie; the account's API keys stay", async () => {
    const account = await signUp();
    const other = await signIn(account.email, account.password);
    const { body: created } = await callJson<{ key: string }>("POST", "/v1/keys", { headers: browser(account.session), body: { name: "stays" } });
    const response = await call("POST", "/v1/auth/logout-all", { headers: browser(other) });
    expect(response.status).toBe(204);
    expect(response.headers.getSetCookie()).toEqual([expect.stringMatching(/^gpr_session=; Max-Age=0/)]);
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(401);
    expect((await asBrowser("GET", "/v1/me", other)).status).toBe(401);
    expect((await call("GET", "/v1/me", { key: created.key })).status).toBe(200);
  });

  it("needs a live session sent from this service's pages: none, an ended one or an API key is 401; another Origin is 403 and nothing ends", async () => {
    const account = await signUp();
    expect((await callJson("POST", "/v1/auth/logout-all")).body).toMatchObject({ error: "unauthorized" });
    const ended = await signIn(account.email, account.password);
    await call("POST", "/v1/auth/logout", { headers: browser(ended) });
    expect((await call("POST", "/v1/auth/logout-all", { headers: browser(ended) })).status).toBe(401);
    const { body: created } = await callJson<{ key: string }>("POST", "/v1/keys", { headers: browser(account.session), body: { name: "k" } });
    expect((await call("POST", "/v1/auth/logout-all", { key: created.key })).status).toBe(401);
    expect((await callJson("POST", "/v1/auth/logout-all", { headers: browser(account.session, "https://evil.example") })).body).toMatchObject({ error: "forbidden" });
    expect((await asBrowser("GET", "/v1/me", account.session)).status).toBe(200);
  });
});
