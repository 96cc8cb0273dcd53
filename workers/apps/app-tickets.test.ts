// A ticket from POST .../open becomes the app's session on its own origin, once, within 60 s, for
// its instance and port only.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../main.ts";
import type { Env } from "../../core/env.ts";
import { newAccount } from "../../test/support/workerd/api-client.ts";
import { appBase, appCall, appCookie, ticketUrl, visit } from "../../test/support/workerd/app-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance, type RunningInstance } from "../../test/support/workerd/proxy-host.ts";
import { advanceClock, freezeClockInEachTest } from "../../test/support/workerd/test-clock.ts";

let key: string;
let instance: RunningInstance;
let other: RunningInstance;

beforeAll(async () => {
  const agent = await FakeAgent.online("app-tickets-host", Array(4).fill("h100-80gb"));
  agent.serveHttp();
  ({ key } = await newAccount());
  instance = await runningInstance(agent, key);
  other = await runningInstance(agent, key);
});

const json = { accept: "application/json" };

describe("a ticket", () => {
  // Frozen: 59.9 s on a running clock would leave 100 ms of real time for the request itself.
  freezeClockInEachTest();

  it("redeems to 302, the same address without it, and the gpr_app cookie: HttpOnly, SameSite=Lax, host-only, Path=/, 12 h, not Secure over http", async () => {
    const url = await ticketUrl(instance.id, 8888, { key });
    const response = await visit(url);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${appBase(instance.id, 8888)}/`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const [cookie, ...more] = response.headers.getSetCookie();
    expect(more).toEqual([]);
    expect(cookie).toMatch(new RegExp(`^gpr_app=gpa_${instance.id}_[a-z2-7]{32}; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax$`));
    expect((await appCall("GET", instance.id, 8888, "/", appCookie(response))).status).toBe(200);
  });

  it("keeps the address's other query parameters exactly as sent", async () => {
    const url = await ticketUrl(instance.id, 8888, { key });
    const ticket = new URL(url).searchParams.get("gpr_ticket")!;
    const response = await visit(`${appBase(instance.id, 8888)}/lab/tree?a=%20b&gpr_ticket=${ticket}&c`);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${appBase(instance.id, 8888)}/lab/tree?a=%20b&c`);
  });

  it("is spent by its first use: a second is 401 and sets no cookie", async () => {
    const url = await ticketUrl(instance.id, 8888, { key });
    expect((await visit(url)).status).toBe(302);
    const again = await visit(url, json);
    expect(again.status).toBe(401);
    expect(appCookie(again)).toBeNull();
    expect(await again.json()).toEqual({ error: "unauthorized", message: "the ticket is unknown or was used already; open the app again from the dashboard" });
  });

  it("two uses at once: exactly one gets the session", async () => {
    const url = await ticketUrl(instance.id, 8888, { key });
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => visit(url)))).map((r) => r.status);
    expect(statuses.sort()).toEqual([302, 401, 401, 401, 401]);
  });

  it("opens within 60 s (the test clock at 59.9 s)", async () => {
    const url = await ticketUrl(instance.id, 8888, { key });
    advanceClock(59_900);
    expect((await visit(url)).status).toBe(302);
  });

  it("is expired at 60 s: 401, and spent", async () => {
    const url = await ticketUrl(instance.id, 8888, { key });
    advanceClock(60_000);
    const response = await visit(url, json);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "unauthorized", message: "the ticket expired (a ticket is valid 60 s); open the app again from the dashboard" });
    expect((await visit(url, json)).status).toBe(401);
  });

  // Each: the other app's origin, its refusal, and what the ticket then gets at its own address (401 spent, 302 untouched).
  it.each<[string, () => string, string, number]>([
    ["port: on another port's origin 401, and spent", () => appBase(instance.id, 8000), "the ticket opens another app; open the app again from the dashboard", 401],
    ["instance: on another instance's origin 401, the ticket untouched", () => appBase(other.id, 8888), "the ticket is not one of this app's; open the app again from the dashboard", 302],
  ])("opens only its own %s", async (_, origin, message, nextUse) => {
    const url = await ticketUrl(instance.id, 8888, { key });
    const ticket = new URL(url).searchParams.get("gpr_ticket")!;
    const wrongApp = await visit(`${origin()}/?gpr_ticket=${ticket}`, json);
    expect(wrongApp.status).toBe(401);
    expect(await wrongApp.json()).toEqual({ error: "unauthorized", message });
    expect((await visit(url)).status).toBe(nextUse);
  });

  it.each(["gpt_x", "", `gpt_${"i-aaabaaaaaaaaaaaa"}_${"a".repeat(32)}`])("a made-up ticket %j is 401", async (ticket) => {
    const response = await visit(`${appBase(instance.id, 8888)}/?gpr_ticket=${ticket}`, json);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("unauthorized");
  });

  it("on an https origin the cookie is Secure", async () => {
    const deployed: Env = { ...env, APPS_DOMAIN: "apps.example.net" };
    const opened = await worker.fetch(new Request(`https://api.example.com/v1/instances/${instance.id}/ports/8888/open`, {
      method: "POST", headers: { authorization: `Bearer ${key}` },
    }), deployed, createExecutionContext());
    const { url } = (await opened.json()) as { url: string };
    expect(url.startsWith(`https://${instance.id}-8888.apps.example.net/?gpr_ticket=`)).toBe(true);
    const redeemed = await worker.fetch(new Request(url), deployed, createExecutionContext());
    expect(redeemed.status).toBe(302);
    expect(redeemed.headers.get("location")).toBe(`https://${instance.id}-8888.apps.example.net/`);
    expect(redeemed.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });
});
