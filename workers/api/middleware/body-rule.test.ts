import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { PASSWORD, signUp } from "../../../test/support/workerd/session-client.ts";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { validationHook } from "../validation.ts";
import { bodyRule, MAX_BODY_BYTES } from "./body-rule.ts";

const JSON_TYPE = "application/json";

/** A raw body (string or bytes) with a content type (null: none) to the operator API. */
function adminRaw(path: string, body: BodyInit | null, contentType: string | null) {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (contentType !== null) headers["content-type"] = contentType;
  return callJson("POST", `/admin/v1${path}`, { rawBody: body ?? undefined, headers });
}

const badRequest = (message: string | RegExp) => ({ status: 400, body: { error: "bad_request", message: typeof message === "string" ? message : expect.stringMatching(message) } });

describe("the body rule: the inputs an OpenAPI-driven fuzzer answered with 500", () => {
  // Each of these got 500 internal: the optional-body operator routes had no content-type guard, and
  // @hono/zod-openapi's bare 415 (a body without JSON Content-Type) was not an ApiError.
  const optionalBodyRoutes = async () => {
    const { id } = await newAccount();
    return ["/machines", "/accounts", `/accounts/${id}/keys`];
  };

  it.each([["{}"], ["null"], ["{not json"], ['{"balance_micros": {}}'], ['{"name": "__proto__"}']])(
    "%s without a Content-Type is 400 bad_request on every optional-body operator route",
    async (raw) => {
      for (const path of await optionalBodyRoutes()) {
        const bytes = new TextEncoder().encode(raw); // a string body would get text/plain from fetch
        expect(await adminRaw(path, bytes, null), path).toMatchObject(badRequest("the request body must be JSON, with Content-Type: application/json"));
      }
    },
  );

  it.each([["{}"], ["null"], ["{not json"]])("%s as text/plain is 400 bad_request naming the content type", async (raw) => {
    for (const path of await optionalBodyRoutes()) {
      expect(await adminRaw(path, raw, "text/plain"), path).toMatchObject(badRequest('Content-Type "text/plain" is not accepted: send application/json'));
    }
  });

  it("POST /machines: {} registers a machine; null is not an object; malformed JSON is not JSON", async () => {
    expect((await adminRaw("/machines", "{}", JSON_TYPE)).status).toBe(201);
    expect(await adminRaw("/machines", "null", JSON_TYPE)).toMatchObject(badRequest("the request body must be a JSON object"));
    expect(await adminRaw("/machines", "{", JSON_TYPE)).toMatchObject(badRequest("the request body is not valid JSON"));
  });

  it("POST /accounts: {} creates an account; a balance that is an object is 400 invalid naming balance_micros", async () => {
    expect(await adminRaw("/accounts", "{}", JSON_TYPE)).toMatchObject({ status: 201, body: { balance_micros: 0 } });
    expect(await adminRaw("/accounts", "{", JSON_TYPE)).toMatchObject(badRequest("the request body is not valid JSON"));
    expect(await adminRaw("/accounts", '{"balance_micros": {}}', JSON_TYPE)).toMatchObject({
      status: 400, body: { error: "invalid", message: expect.stringMatching(/^balance_micros: /) },
    });
  });

  it('POST /accounts/{id}/keys: null and malformed JSON are 400 bad_request; {"name": "__proto__"} is just a name', async () => {
    const { id } = await newAccount();
    expect(await adminRaw(`/accounts/${id}/keys`, "null", JSON_TYPE)).toMatchObject(badRequest("the request body must be a JSON object"));
    expect(await adminRaw(`/accounts/${id}/keys`, "{", JSON_TYPE)).toMatchObject(badRequest("the request body is not valid JSON"));
    expect(await adminRaw(`/accounts/${id}/keys`, '{"name": "__proto__"}', JSON_TYPE)).toMatchObject({ status: 201, body: { name: "__proto__" } });
  });

  it("POST /v1/keys (the customer route with an optional body) refuses a body without JSON Content-Type the same way", async () => {
    const { key } = await newAccount();
    const response = await callJson("POST", "/v1/keys", { key, rawBody: new TextEncoder().encode("{}") });
    expect(response).toMatchObject(badRequest("the request body must be JSON, with Content-Type: application/json"));
  });

  it("a Content-Type @hono/zod-openapi would refuse with 415 is 400 bad_request on a required body too", async () => {
    const { id } = await newAccount();
    for (const type of ["application/json;", "application/json; charset", "application/json;charset=latin1;x", "application/a_b+json"]) {
      expect(await adminRaw(`/accounts/${id}/credits`, '{"amount_micros": 1}', type), type).toMatchObject(badRequest(/^Content-Type .* is not accepted: send application\/json$/));
    }
  });
});

describe("the body rule", () => {
  it("an optional body left out, or sent empty with a JSON Content-Type, reads as {}", async () => {
    for (const contentType of [null, JSON_TYPE]) {
      expect((await adminRaw("/machines", null, contentType)).status, String(contentType)).toBe(201);
      expect((await adminRaw("/machines", new Uint8Array(), contentType)).status, String(contentType)).toBe(201);
    }
  });

  it("a required body left out is 400 bad_request saying it is required", async () => {
    const { id } = await newAccount();
    expect(await adminRaw(`/accounts/${id}/credits`, null, null)).toMatchObject(badRequest("the request body is required: a JSON object, with Content-Type: application/json"));
    expect(await adminRaw(`/accounts/${id}/credits`, "", JSON_TYPE)).toMatchObject(badRequest("the request body is required: a JSON object, with Content-Type: application/json"));
  });

  it("JSON media types with parameters are taken; a charset other than UTF-8 is 400 bad_request", async () => {
    const { id } = await newAccount();
    for (const type of ["application/json; charset=utf-8", 'application/json; charset="UTF-8"', "APPLICATION/JSON", "application/merge-patch+json"]) {
      expect((await adminRaw(`/accounts/${id}/credits`, '{"amount_micros": 1}', type)).status, type).toBe(200);
    }
    expect(await adminRaw(`/accounts/${id}/credits`, '{"amount_micros": 1}', "application/json; charset=latin1")).toMatchObject(
      badRequest("charset latin1 is not accepted: JSON bodies are UTF-8"),
    );
  });

  it("bytes that are not UTF-8 are 400 bad_request, and a UTF-8 byte order mark is allowed", async () => {
    const { id } = await newAccount();
    const invalid = Uint8Array.from([...new TextEncoder().encode('{"amount_micros": 1, "note": "'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    expect(await adminRaw(`/accounts/${id}/credits`, invalid, JSON_TYPE)).toMatchObject(badRequest("the request body is not valid UTF-8"));
    expect((await adminRaw(`/accounts/${id}/credits`, '\uFEFF{"amount_micros": 1}', JSON_TYPE)).status).toBe(200);
  });

  it("a __proto__ key anywhere is 400 invalid naming where", async () => {
    const { key } = await newAccount();
    const launch = '{"gpu_model": "rtx4090", "gpu_count": 1, "template": "pytorch", "env": {"__proto__": {"A": "1"}}}';
    const response = await callJson("POST", "/v1/instances", { key, rawBody: launch, headers: { "content-type": JSON_TYPE } });
    expect(response).toMatchObject({ status: 400, body: { error: "invalid", message: "env.__proto__: not allowed as a field name" } });
  });

  it("a body over 1 MiB is 413 payload_too_large, whether it declares its length or not", async () => {
    const { id } = await newAccount();
    const huge = `{"amount_micros": 1, "note": "${"x".repeat(MAX_BODY_BYTES)}"}`;
    const tooLarge = { status: 413, body: { error: "payload_too_large", message: `the request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)` } };
    expect(await adminRaw(`/accounts/${id}/credits`, huge, JSON_TYPE)).toMatchObject(tooLarge);
    const streamed = new Blob([huge]).stream();
    expect(await adminRaw(`/accounts/${id}/credits`, streamed, JSON_TYPE)).toMatchObject(tooLarge);
  });

  it("a route without a declared body ignores one", async () => {
    const { key } = await newAccount();
    expect((await callJson("GET", "/v1/me", { key })).status).toBe(200);
    const stray = await callJson("POST", "/v1/auth/logout", { rawBody: "not json", headers: { "content-type": "text/plain" } });
    expect(stray.status).toBe(204);
  });

  it("access is checked before the body: no session for the password change is 401, a foreign Origin on sign-up 403", async () => {
    const password = await callJson("POST", "/v1/auth/password", { rawBody: "{", headers: { "content-type": "text/plain" } });
    expect(password).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    const signup = await callJson("POST", "/v1/auth/signup", { rawBody: "{", headers: { "content-type": JSON_TYPE, origin: "https://evil.example" } });
    expect(signup).toMatchObject({ status: 403, body: { error: "forbidden" } });
    const admin = await callJson("POST", "/admin/v1/machines", { rawBody: "{", headers: { "content-type": "text/plain" } });
    expect(admin).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    const { session } = await signUp(undefined, PASSWORD);
    const signedIn = await callJson("POST", "/v1/auth/password", { rawBody: "{", headers: { "content-type": JSON_TYPE, cookie: `gpr_session=${session}`, origin: "http://gpu.test" } });
    expect(signedIn).toMatchObject(badRequest("the request body is not valid JSON"));
  });

  it("applies to a route registered after the rule was installed: it follows the routes' declarations", async () => {
    const app = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
    app.use("*", bodyRule(app));
    app.openapi(
      createRoute({
        method: "post", path: "/later/{id}",
        request: { params: z.object({ id: z.string() }), body: { required: false, content: { "application/json": { schema: z.object({ n: z.number() }).strict() } } } },
        responses: { 200: { description: "ok" } },
      }),
      (c) => c.json({ n: c.req.valid("json").n ?? null }, 200),
    );
    app.onError((error) => (error instanceof ApiError ? error.toResponse() : new Response("unexpected", { status: 500 })));
    const post = (body: BodyInit | null, type?: string) =>
      app.request("/later/1", { method: "POST", body, headers: type ? { "content-type": type } : {} });
    expect(await (await post('{"n": 1}', JSON_TYPE)).json()).toEqual({ n: 1 });
    expect(await (await post(null)).json()).toEqual({ n: null });
    expect(await (await post(new TextEncoder().encode("{}"))).json()).toMatchObject({ error: "bad_request" });
    expect(await (await post("{}", "text/plain")).json()).toMatchObject({ error: "bad_request" });
    expect(await (await post("[1]", JSON_TYPE)).json()).toEqual({ error: "bad_request", message: "the request body must be a JSON object" });
  });
});
