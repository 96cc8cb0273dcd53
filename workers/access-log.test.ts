// The access line's shape for each kind of request, and that the Worker writes exactly one per request.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useLogLevel } from "../core/log.ts";
import { call } from "../test/support/workerd/api-client.ts";
import { accessLine } from "./access-log.ts";
import worker from "./main.ts";

afterEach(() => {
  vi.restoreAllMocks();
  useLogLevel(env.LOG_LEVEL);
});

const KEY = "gpk_acc-abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567";
const SESSION = "gps_acc-qrstuvwxyz234567_abcdefghijklmnopqrstuvwxyz234567";
const INSTANCE_TOKEN = "gpi_acc-abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567";
const AGENT_TOKEN = "gma_12_abcdefghijklmnopqrstuvwxyz234567";
// Machine 1 in its first 4 characters ("aaab"): core/ids.ts.
const INSTANCE = "i-aaabcdefghijklmn";

const line = (url: string, headers: Record<string, string> = {}, status = 200, method = "GET") =>
  accessLine({ request: new Request(url, { method, headers }), status, durationMs: 12, requestId: "req_x" });

describe("the access line", () => {
  it("names the account of an API key, the path without its query, and never the key or the query", () => {
    const { level, fields } = line("https://api.test/v1/instances?secret=hunter2", { authorization: `Bearer ${KEY}` });
    expect({ level, fields }).toEqual({
      level: "info",
      fields: { request_id: "req_x", account_id: "acc-abcdefghijklmnop", method: "GET", path: "/v1/instances", status: 200, duration_ms: 12 },
    });
    expect(JSON.stringify(fields)).not.toMatch(/hunter2|abcdefghijklmnopqrstuvwxyz234567/);
  });

  it("a proxied request names the account of its instance token, the instance and the machine the instance id names", () => {
    const { fields } = line(`https://api.test/v1/instances/${INSTANCE}/proxy/8000/v1/models?token=abc`, { authorization: `Bearer ${INSTANCE_TOKEN}` }, 502);
    expect(fields).toEqual({
      request_id: "req_x", account_id: "acc-abcdefghijklmnop", instance_id: INSTANCE, machine_id: 1,
      method: "GET", path: `/v1/instances/${INSTANCE}/proxy/8000/v1/models`, status: 502, duration_ms: 12,
    });
  });

  it("a session cookie names its person (a session of before teams: the person made from its account)", () => {
    const { fields } = line("https://api.test/v1/me", { cookie: `theme=dark; gpr_session=${SESSION}` });
    expect(fields.user_id).toBe("usr-qrstuvwxyz234567");
    expect(fields.account_id).toBeUndefined();
    expect(line("https://api.test/v1/me", { cookie: `gpr_session=${SESSION.replace("acc-", "usr-")}` }).fields.user_id).toBe("usr-qrstuvwxyz234567");
    expect(JSON.stringify(fields)).not.toContain(SESSION);
  });

  it("an agent's connection names its machine; the operator's account routes name the account", () => {
    expect(line("https://api.test/agent/v1/connect", { authorization: `Bearer ${AGENT_TOKEN}` }, 101).fields)
      .toEqual({ request_id: "req_x", machine_id: 12, method: "GET", path: "/agent/v1/connect", status: 101, duration_ms: 12 });
    expect(line("https://api.test/admin/v1/accounts/acc-abcdefghijklmnop/credits", { authorization: "Bearer operator" }, 200, "POST").fields)
      .toEqual({ request_id: "req_x", account_id: "acc-abcdefghijklmnop", method: "POST", path: "/admin/v1/accounts/acc-abcdefghijklmnop/credits", status: 200, duration_ms: 12 });
  });

  it("an app host names its instance and machine", () => {
    const { fields } = line(`https://${INSTANCE}-8888.apps.test/lab`);
    expect(fields).toMatchObject({ instance_id: INSTANCE, machine_id: 1, path: "/lab" });
  });

  it("names nothing that is not shaped like an id, and cuts a long path", () => {
    const { fields } = line(`https://api.test/v1/instances/not-an-id/${"x".repeat(2000)}`, { authorization: "Bearer gpk_bogus" }, 404);
    expect(Object.keys(fields)).toEqual(["request_id", "method", "path", "status", "duration_ms"]);
    expect((fields.path as string).length).toBe(512);
  });

  it("a deliberate 500 is a warning; an unexpected error makes an error line with its message and stack", () => {
    expect(line("https://api.test/v1/keys/key-1", {}, 500, "DELETE").level).toBe("warn");
    const error = new TypeError("boom");
    const { level, fields } = accessLine({ request: new Request("https://api.test/v1/me"), status: 500, durationMs: 3, requestId: "req_y", unexpected: error });
    expect(level).toBe("error");
    expect(fields).toMatchObject({ request_id: "req_y", status: 500, error: "boom", stack: error.stack });
  });
});

describe("the Worker", () => {
  it("writes one access line per request, with the request id it answers in X-Request-Id", async () => {
    const written = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const response = await call("GET", "/v1/me?x=1", { key: KEY });
    expect(response.status).toBe(401);
    const lines = written.mock.calls.map(([text]) => JSON.parse(String(text)) as Record<string, unknown>).filter((l) => l.msg === "request");
    expect(lines).toEqual([{
      level: "info", msg: "request", request_id: response.headers.get("x-request-id"), account_id: "acc-abcdefghijklmnop",
      method: "GET", path: "/v1/me", status: 401, duration_ms: expect.any(Number),
    }]);
  });

  it("writes no access line of a request under LOG_LEVEL warn, and writes it again under info", async () => {
    const info = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const fetchWith = (logLevel: string) =>
      worker.fetch(new Request("https://api.test/v1/me", { headers: { authorization: `Bearer ${KEY}` } }), { ...env, LOG_LEVEL: logLevel }, createExecutionContext());
    expect((await fetchWith("warn")).status).toBe(401);
    expect(info).not.toHaveBeenCalled();
    expect((await fetchWith("info")).status).toBe(401);
    expect(info.mock.calls.map(([text]) => JSON.parse(String(text)).msg)).toEqual(["request"]);
  });
});
