import { describe, expect, it } from "vitest";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { asBrowser, signUp } from "../../../test/support/workerd/session-client.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("/v1/keys", () => {
  it("POST shows the key once; GET lists its id, name, prefix and last use, never the key", async () => {
    const { id, key } = await newAccount();
    const created = await callJson("POST", "/v1/keys", { key, body: { name: "laptop" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key-[a-z2-7]{12}$/),
      key: expect.stringMatching(new RegExp(`^gpk_${id}_[a-z2-7]{32}$`)),
      name: "laptop",
      prefix: expect.any(String),
      created_at: expect.stringMatching(ISO),
      scopes: ["*"], instance_ids: null, expires_at: null, monthly_limit_micros: null,
    });
    const newKey = created.body.key as string;
    expect(newKey.startsWith(created.body.prefix as string)).toBe(true);
    expect(newKey.length - (created.body.prefix as string).length).toBeGreaterThanOrEqual(27);
    expect((await callJson("GET", "/v1/me", { key: newKey })).status).toBe(200);

    const listed = await callJson<{ items: Record<string, unknown>[] }>("GET", "/v1/keys", { key: newKey });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(2);
    expect(listed.body.items[1]).toEqual({
      id: created.body.id, name: "laptop", prefix: created.body.prefix, created_at: created.body.created_at, last_used_at: expect.stringMatching(ISO),
      scopes: ["*"], instance_ids: null, expires_at: null, monthly_limit_micros: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(newKey);
    expect(JSON.stringify(listed.body)).not.toContain(key);
  });

  it("an empty POST makes a key with an empty name; a name over 100 characters is 400 invalid naming name", async () => {
    const { key } = await newAccount();
    const empty = await callJson("POST", "/v1/keys", { key });
    expect(empty).toMatchObject({ status: 201, body: { name: "" } });
    const long = await callJson("POST", "/v1/keys", { key, body: { name: "n".repeat(101) } });
    expect(long).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^name: /) } });
  });

  it("the 51st live key is 409 conflict; revoking one makes room", async () => {
    const { key } = await newAccount();
    for (let i = 2; i <= 50; i++) expect((await callJson("POST", "/v1/keys", { key })).status).toBe(201);
    const refused = await callJson("POST", "/v1/keys", { key });
    expect(refused).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("50") } });
    const items = (await callJson<{ items: { id: string }[] }>("GET", "/v1/keys", { key })).body.items;
    expect(items).toHaveLength(50);
    expect((await callJson("DELETE", `/v1/keys/${items[1]!.id}`, { key })).status).toBe(204);
    expect((await callJson("POST", "/v1/keys", { key })).status).toBe(201);
  });

  it("simultaneous creates cannot pass 50 live keys between them", async () => {
    const { key } = await newAccount();
    for (let i = 2; i <= 45; i++) await callJson("POST", "/v1/keys", { key });
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => callJson("POST", "/v1/keys", { key })))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/keys", { key })).body.items).toHaveLength(50);
  });

  it("revoking the key making the request is allowed; its next request is 401", async () => {
    const { key } = await newAccount();
    const items = (await callJson<{ items: { id: string }[] }>("GET", "/v1/keys", { key })).body.items;
    expect((await callJson("DELETE", `/v1/keys/${items[0]!.id}`, { key })).status).toBe(204);
    const after = await callJson("GET", "/v1/keys", { key });
    expect(after).toMatchObject({ status: 401, body: { error: "unauthorized" } });
  });

  it("revoking an unknown or already revoked key is 404 not_found", async () => {
    const { key } = await newAccount();
    const spare = await callJson("POST", "/v1/keys", { key });
    expect((await callJson("DELETE", `/v1/keys/${spare.body.id as string}`, { key })).status).toBe(204);
    for (const id of [spare.body.id as string, "key-zzzzzzzzzzzz"]) {
      const { status, body } = await callJson("DELETE", `/v1/keys/${id}`, { key });
      expect(status).toBe(404);
      expect(body).toEqual({ error: "not_found", message: expect.stringContaining(id) });
    }
  });

  it("a signed-in browser creates, lists and revokes keys", async () => {
    const { session } = await signUp();
    const created = await asBrowser("POST", "/v1/keys", session, { body: { name: "from the dashboard" } });
    expect(created.status).toBe(201);
    expect((await callJson("GET", "/v1/me", { key: created.body.key as string })).status).toBe(200);
    expect((await asBrowser("GET", "/v1/keys", session)).body).toEqual({
      items: [expect.objectContaining({ id: created.body.id, name: "from the dashboard", last_used_at: expect.any(String) })],
    });
    expect((await asBrowser("DELETE", `/v1/keys/${created.body.id as string}`, session)).status).toBe(204);
    expect((await callJson("GET", "/v1/me", { key: created.body.key as string })).status).toBe(401);
  });

  it("without a credential every route is 401", async () => {
    for (const [method, path] of [["GET", "/v1/keys"], ["POST", "/v1/keys"], ["DELETE", "/v1/keys/key-zzzzzzzzzzzz"]] as const) {
      expect((await callJson(method, path)).status).toBe(401);
    }
  });
});
