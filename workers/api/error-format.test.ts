import { describe, expect, it } from "vitest";
import { call, callJson, newAccount } from "../../test/support/workerd/api-client.ts";

describe("errors", () => {
  it("an unknown route is 404 not_found, with or without a key", async () => {
    const { key } = await newAccount();
    for (const options of [{}, { key }]) {
      const { status, body, headers } = await callJson("GET", "/v1/nothing-here", options);
      expect(status).toBe(404);
      expect(body).toEqual({ error: "not_found", message: expect.any(String) });
      expect(headers.get("x-request-id")).toMatch(/^req_/);
    }
  });

  it("malformed JSON is 400 bad_request", async () => {
    const { key } = await newAccount();
    const { status, body } = await callJson("POST", "/v1/instances", { key, rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "bad_request", message: expect.any(String) });
  });

  it.each([["[]"], ['"text"'], ["42"], ["null"]])("a JSON body %s that is not an object is 400 bad_request", async (raw) => {
    const { key } = await newAccount();
    const { status, body } = await callJson("POST", "/v1/instances", { key, rawBody: raw, headers: { "content-type": "application/json" } });
    expect(status).toBe(400);
    expect(body.error).toBe("bad_request");
  });

  it("a body sent with another content type is 400 bad_request", async () => {
    const { key } = await newAccount();
    const { status, body } = await callJson("POST", "/v1/instances", { key, rawBody: "gpu_model=rtx4090", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(status).toBe(400);
    expect(body.error).toBe("bad_request");
  });

  it("every response carries a distinct X-Request-Id", async () => {
    const { key } = await newAccount();
    const ids = new Set<string | null>();
    for (const response of [await call("GET", "/v1/me", { key }), await call("GET", "/v1/me"), await call("GET", "/nope")]) {
      ids.add(response.headers.get("x-request-id"));
    }
    expect(ids.size).toBe(3);
    expect([...ids].every((id) => id?.startsWith("req_"))).toBe(true);
  });

  it("a 401 comes before schema validation for a malformed key", async () => {
    const { status } = await callJson("POST", "/v1/instances", { key: "garbage", body: { gpu_count: 99 } });
    expect(status).toBe(401);
  });
});
