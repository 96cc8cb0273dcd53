// Instance web apps on origins of their own, on the real stack: wrangler dev, real agents, the dev
// container server inside. From Node, with every *.localhost name resolved to loopback as Chromium
// does (the browser's view is in dashboard.test.ts). The ticket's 60 s are on the test clock in
// workers/apps/app-tickets.test.ts.
import { Readable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { BLOCK_BYTES, payloadBlock, payloadSha256 } from "../../host-agent/dev/container/seeded-bytes.ts";
import { appCookieOf, appRequest, appWebSocket, openAppRequest } from "./support/app-origin.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

const stack = useE2eStack();
let jupyter: Instance;

beforeAll(async () => {
  jupyter = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
}, 120_000);

const appsDomain = () => stack.appsDomain;
const origin = (instance: Instance, port: number) => `http://${instance.id}-${port}.${appsDomain()}`;
const json = { accept: "application/json" };

/** POST .../open with the dev key (or `key`): the app's address with its ticket. */
async function open(instance: Instance, port: number, key = stack.key): Promise<string> {
  const opened = await stack.api<{ url: string }>("POST", `/v1/instances/${instance.id}/ports/${port}/open`, undefined, key);
  if (opened.status !== 200) throw new Error(`open: ${opened.status} ${JSON.stringify(opened.body)}`);
  return opened.body.url;
}

/** Opens the app and follows its ticket: the Cookie header of its session. */
async function session(instance: Instance, port: number, key = stack.key): Promise<string> {
  const redeemed = await appRequest(await open(instance, port, key));
  const cookie = appCookieOf(redeemed);
  if (redeemed.status !== 302 || cookie === null) throw new Error(`redeem: ${redeemed.status} ${redeemed.body}`);
  return cookie;
}

async function refusal(instance: Instance, port: number, cookie: string | null): Promise<{ status: number; body: unknown }> {
  const response = await appRequest(`${origin(instance, port)}/`, { headers: { ...json, ...(cookie ? { cookie } : {}) } });
  return { status: response.status, body: JSON.parse(response.body) };
}

describe("opening an app", () => {
  it("gives its own origin under localhost:PORT with a ticket; the ticket redeems once to the gpr_app cookie, then 401", async () => {
    const opened = await stack.api<{ url: string; expires_at: string }>("POST", `/v1/instances/${jupyter.id}/ports/8888/open`);
    expect(opened.status).toBe(200);
    expect(opened.body.url).toMatch(new RegExp(`^http://${jupyter.id}-8888\\.localhost:\\d+/\\?gpr_ticket=gpt_${jupyter.id}_[a-z2-7]{32}$`));
    expect(appsDomain()).toBe(`localhost:${new URL(stack.baseUrl).port}`);
    const redeemed = await appRequest(opened.body.url);
    expect(redeemed.status).toBe(302);
    expect(redeemed.headers.location).toBe(`${origin(jupyter, 8888)}/`);
    expect(redeemed.headers["set-cookie"]).toEqual([expect.stringMatching(/^gpr_app=gpa_[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/)]);
    const page = await appRequest(`${origin(jupyter, 8888)}/`, { headers: { cookie: appCookieOf(redeemed)! } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>Dev container app</title>");
    const reused = await appRequest(opened.body.url, { headers: json });
    expect(reused.status).toBe(401);
    expect(JSON.parse(reused.body)).toEqual({ error: "unauthorized", message: "the ticket is unknown or was used already; open the app again from the dashboard" });
  });

  it("a port the instance does not have is 404, an instance of nobody's 404, without a key 401", async () => {
    expect((await stack.api("POST", `/v1/instances/${jupyter.id}/ports/8000/open`)).body).toEqual({ error: "not_found", message: `instance ${jupyter.id} has no HTTP port 8000` });
    expect((await stack.api("POST", "/v1/instances/i-aaabaaaaaaaaaaaa/ports/8888/open")).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/v1/instances/${jupyter.id}/ports/8888/open`, { method: "POST" })).status).toBe(401);
  });

  it("a ticket of one port opens nothing on another port's or instance's origin", async () => {
    const other = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "comfyui" });
    const ticket = new URL(await open(jupyter, 8888)).search;
    expect((await appRequest(`${origin(jupyter, 8188)}/${ticket}`, { headers: json })).status).toBe(401);
    expect((await appRequest(`${origin(other, 8888)}/${ticket}`, { headers: json })).status).toBe(401);
    await stack.api("DELETE", `/v1/instances/${other.id}`);
  });
});

describe("an app's origin with its session", () => {
  it("passes method, path and query exactly, Authorization and the app's cookies; the app never sees gpr_app or a prefix", async () => {
    const cookie = await session(jupyter, 8888);
    const echoed = await appRequest(`${origin(jupyter, 8888)}/echo/a%20b/%2F?x=1&y=%20z`, {
      method: "PUT",
      headers: { cookie: `_xsrf=abc; ${cookie}; theme=dark`, authorization: "token app-own", "content-type": "text/plain", "x-custom": "kept" },
      body: "hello",
    });
    expect(echoed.status).toBe(200);
    const seen = JSON.parse(echoed.body) as { method: string; path: string; query: string; headers: Record<string, string>; body_bytes: number };
    expect(seen).toMatchObject({ method: "PUT", path: "/echo/a%20b/%2F", query: "x=1&y=%20z", body_bytes: 5 });
    expect(seen.headers).toMatchObject({ authorization: "token app-own", cookie: "_xsrf=abc; theme=dark", "x-custom": "kept", "x-forwarded-proto": "http" });
    expect(seen.headers["x-forwarded-host"]).toBe(`${jupyter.id}-8888.${appsDomain()}`);
    expect(seen.headers["x-forwarded-prefix"]).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain("gpr_app");
  });

  it("the app's own Set-Cookie reaches the browser", async () => {
    const cookie = await session(jupyter, 8888);
    const response = await appRequest(`${origin(jupyter, 8888)}/app/cookie`, { headers: { cookie: `dev_app=js; ${cookie}` } });
    expect(JSON.parse(response.body)).toEqual({ cookie: "dev_app=js" });
    expect(response.headers["set-cookie"]).toEqual(["dev_app_server=1; Path=/; HttpOnly; SameSite=Lax"]);
  });

  it("several Set-Cookie headers stay separate", async () => {
    const cookie = await session(jupyter, 8888);
    const response = await appRequest(`${origin(jupyter, 8888)}/echo/cookies?set_cookies=2`, { headers: { cookie } });
    expect(response.headers["set-cookie"]).toEqual(["echo_0=0; Path=/", "echo_1=1; Path=/"]);
  });

  it("server-sent events arrive one by one", async () => {
    const cookie = await session(jupyter, 8888);
    const response = await openAppRequest(`${origin(jupyter, 8888)}/sse?n=5&interval_ms=200`, { headers: { cookie } });
    expect(response.headers["content-type"]).toBe("text/event-stream");
    const chunks: string[] = [];
    for await (const chunk of response) chunks.push((chunk as Buffer).toString());
    expect(chunks.join("")).toBe([0, 1, 2, 3, 4].map((i) => `data: {"i": ${i}}\n\n`).join(""));
    // Passed on as written, not gathered: the first read holds the first event alone.
    expect(chunks[0]).toBe('data: {"i": 0}\n\n');
  });

  it("a 64 MB upload streams through to the app intact", async () => {
    const cookie = await session(jupyter, 8888);
    // The seeded payload: no two blocks alike, so a piece lost, doubled or reordered changes the digest.
    const size = 64 * 1024 * 1024;
    const body = Readable.from((function* () {
      for (let index = 0; index < size / BLOCK_BYTES; index++) yield payloadBlock(index);
    })());
    const response = await appRequest(`${origin(jupyter, 8888)}/echo/upload`, {
      method: "POST", headers: { cookie, "content-type": "application/octet-stream", "content-length": String(size) }, body,
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ body_bytes: size, body_sha256: payloadSha256(size) });
  }, 120_000);

  it("a WebSocket opens with the cookie and echoes; without it the upgrade is refused", async () => {
    const cookie = await session(jupyter, 8888);
    const wsUrl = `${origin(jupyter, 8888).replace(/^http/, "ws")}/ws`;
    const socket = appWebSocket(wsUrl, { cookie });
    await new Promise((resolve, reject) => { socket.once("open", resolve); socket.once("error", reject); });
    const echoed = new Promise<string>((resolve) => socket.once("message", (data: Buffer) => resolve(data.toString())));
    socket.send("hello app");
    expect(await echoed).toBe("hello app");
    socket.close(1000);
    const refused = appWebSocket(wsUrl, {});
    const status = await new Promise<number>((resolve) => refused.once("unexpected-response", (_req, res) => resolve(res.statusCode!)));
    expect(status).toBe(401);
  });
});

describe("refusals on an app's origin", () => {
  it("without a cookie: the page for a browser, JSON for a client that asks for it", async () => {
    const page = await appRequest(`${origin(jupyter, 8888)}/lab`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(page.status).toBe(401);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("Open this app from the dashboard");
    expect(await refusal(jupyter, 8888, null)).toEqual({
      status: 401,
      body: { error: "unauthorized", message: "no app session: open this app from the dashboard (its Open button) or with POST /v1/instances/{id}/ports/{port}/open" },
    });
  });

  it("a cookie of another port or another instance is 401", async () => {
    const cookie = await session(jupyter, 8888);
    expect(await refusal(jupyter, 8000, cookie)).toEqual({ status: 401, body: { error: "unauthorized", message: "the app session belongs to another app" } });
    const other = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    expect((await refusal(other, 8888, cookie)).status).toBe(401);
    await stack.api("DELETE", `/v1/instances/${other.id}`);
  });

  it("after stop 409 not_running; after start (a new run) 401; after destroy 401", async () => {
    const app = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    const cookie = await session(app, 8888);
    expect((await stack.api("POST", `/v1/instances/${app.id}/stop`)).status).toBe(204);
    expect(await refusal(app, 8888, cookie)).toEqual({ status: 409, body: { error: "not_running", message: `instance ${app.id} is stopped, not running` } });
    expect((await stack.api("POST", `/v1/instances/${app.id}/start`)).status).toBe(204);
    expect((await refusal(app, 8888, cookie)).status).toBe(401);
    // The new run's app opens once it runs and its server answers; then destroy ends it.
    const fresh = await waitForSession(app);
    await poll(() => appRequest(`${origin(app, 8888)}/health`, { headers: { cookie: fresh } }).then((r) => r.status), (status) => status === 200);
    expect((await stack.api("DELETE", `/v1/instances/${app.id}`)).status).toBe(204);
    expect((await refusal(app, 8888, fresh)).status).toBe(401);
  });

  it("revoking the key that opened the app ends it on the very next request", async () => {
    const created = await stack.api<{ id: string; key: string }>("POST", "/v1/keys", { name: "app opener" });
    const cookie = await session(jupyter, 8888, created.body.key);
    expect((await appRequest(`${origin(jupyter, 8888)}/health`, { headers: { cookie } })).status).toBe(200);
    expect((await stack.api("DELETE", `/v1/keys/${created.body.id}`)).status).toBe(204);
    expect(await refusal(jupyter, 8888, cookie)).toEqual({
      status: 401, body: { error: "unauthorized", message: "the API key that opened the app was revoked or has expired; open the app again from the dashboard" },
    });
  });

  it("signing out ends the apps that session opened on the very next request", async () => {
    const login = await fetch(`${stack.baseUrl}/v1/auth/login`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: stack.setup.account.email, password: stack.setup.account.password }),
    });
    const browserSession = login.headers.getSetCookie()[0]!.split(";")[0]!;
    const asBrowser = { cookie: browserSession, origin: stack.baseUrl };
    const opened = await fetch(`${stack.baseUrl}/v1/instances/${jupyter.id}/ports/8888/open`, { method: "POST", headers: asBrowser });
    expect(opened.status).toBe(200);
    const cookie = appCookieOf(await appRequest(((await opened.json()) as { url: string }).url))!;
    expect((await appRequest(`${origin(jupyter, 8888)}/health`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${stack.baseUrl}/v1/auth/logout`, { method: "POST", headers: asBrowser })).status).toBe(204);
    expect((await refusal(jupyter, 8888, cookie)).status).toBe(401);
  });

  it("a host under the apps domain that names no app is 404", async () => {
    for (const label of ["nothing-here", `${jupyter.id}-0`, `${jupyter.id}-65536`]) {
      const response = await appRequest(`http://${label}.${appsDomain()}/`, { headers: json });
      expect(response.status, label).toBe(404);
      expect(JSON.parse(response.body).error).toBe("not_found");
    }
  });
});

/** An app session of `instance` once its new run is running (opening is 409 until then). */
async function waitForSession(instance: Instance): Promise<string> {
  const opened = await poll(() => stack.api<{ url: string }>("POST", `/v1/instances/${instance.id}/ports/8888/open`), (r) => r.status === 200);
  return appCookieOf(await appRequest(opened.body.url))!;
}
