// Apps under the apps domain are same-site with each other: what keeps one tenant's app from acting
// on another's with its session. Another site may only open an app as a page (Fetch Metadata), and
// over https the session lives in a `__Host-` cookie no other app can plant.
import { beforeAll, describe, expect, it } from "vitest";
import { newAccount } from "../../test/support/workerd/api-client.ts";
import { appBase, appCall, appSession, ticketUrl, visit } from "../../test/support/workerd/app-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance, type RunningInstance } from "../../test/support/workerd/proxy-host.ts";

let agent: FakeAgent;
let key: string;
let instance: RunningInstance;

beforeAll(async () => {
  agent = await FakeAgent.online("app-site-host", ["h100-80gb"]);
  agent.serveHttp();
  ({ key } = await newAccount());
  instance = await runningInstance(agent, key);
});

const fetchMetadata = (site: string, mode: string) => ({ "sec-fetch-site": site, "sec-fetch-mode": mode, accept: "application/json" });

describe("a request from another site", () => {
  it.each([
    ["POST", "same-site", "cors", "another app's script calling this one"],
    ["GET", "same-site", "no-cors", "another app's image or script tag"],
    ["POST", "same-site", "navigate", "another app's form posting to this one"],
    ["GET", "cross-site", "cors", "any other site's script"],
  ])("%s with Sec-Fetch-Site %s, mode %s (%s) is refused 403 and never reaches the app", async (method, site, mode) => {
    const session = await appSession(instance.id, 8888, { key });
    const before = agent.httpRequests(instance.id).length;
    const response = await appCall(method, instance.id, 8888, "/api/contents", session, { headers: fetchMetadata(site, mode) });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: "forbidden", message: expect.stringContaining(`Sec-Fetch-Site: ${site}`) });
    expect(agent.httpRequests(instance.id).length).toBe(before);
  });

  it("may open the app as a page (a GET navigation), and the app's own pages and non-browser clients may call it", async () => {
    const session = await appSession(instance.id, 8888, { key });
    for (const headers of [fetchMetadata("cross-site", "navigate"), fetchMetadata("same-site", "navigate"), fetchMetadata("same-origin", "cors"), fetchMetadata("none", "navigate"), {}]) {
      const response = await appCall("GET", instance.id, 8888, "/tree", session, { headers });
      expect([headers, response.status]).toEqual([headers, 200]);
      await response.body?.cancel();
    }
  });

  it("may follow the dashboard's Open: the ticket is redeemed on a cross-site navigation", async () => {
    const response = await visit(await ticketUrl(instance.id, 8888, { key }), { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" });
    expect(response.status).toBe(302);
  });
});

describe("the app session's cookie over https", () => {
  const overHttps = (url: string) => url.replace(/^http:/, "https:");

  it("is __Host-gpr_app: Secure, host-only, Path=/", async () => {
    const response = await visit(overHttps(await ticketUrl(instance.id, 8888, { key })));
    expect(response.status).toBe(302);
    expect(response.headers.getSetCookie()).toEqual([expect.stringMatching(/^__Host-gpr_app=gpa_[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax; Secure$/)]);
  });

  it("is the only name that counts there: a gpr_app cookie (which any app of the domain could set) is no session, and neither reaches the app", async () => {
    const response = await visit(overHttps(await ticketUrl(instance.id, 8888, { key })));
    const token = /^__Host-gpr_app=([^;]+)/.exec(response.headers.getSetCookie()[0]!)![1]!;
    const base = overHttps(appBase(instance.id, 8888));
    const planted = await visit(`${base}/tree`, { cookie: `gpr_app=${token}`, accept: "application/json" });
    expect(planted.status).toBe(401);
    await planted.body?.cancel();
    const before = agent.httpRequests(instance.id).length;
    const own = await visit(`${base}/tree`, { cookie: `__Host-gpr_app=${token}; gpr_app=${token}; theirs=1` });
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const forwarded = agent.httpRequests(instance.id).slice(before);
    expect(forwarded.map((r) => Object.fromEntries(r.headers).cookie)).toEqual(["theirs=1"]);
  });
});
