import { describe, expect, it } from "vitest";
import { admin, call, callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { auditLedger } from "../../../test/support/workerd/ledger-audit.ts";

describe("operator API", () => {
  it.each([
    ["GET", "/admin/v1/machines"],
    ["POST", "/admin/v1/accounts"],
    ["PUT", "/admin/v1/gpu-models/rtx4090"],
    ["POST", "/admin/v1/machines"],
    ["GET", "/admin/v1/accounts/acc-notchecked2345"],
    ["PATCH", "/admin/v1/accounts/acc-notchecked2345"],
  ])("%s %s without the admin token is 401, with a wrong one too", async (method, path) => {
    expect((await call(method, path)).status).toBe(401);
    const wrong = await call(method, path, { key: "not-the-token", body: method === "GET" ? undefined : {} });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: "unauthorized", message: expect.any(String) });
  });

  it("an account API key is not an admin token", async () => {
    const { key } = await newAccount();
    expect((await call("GET", "/admin/v1/machines", { key })).status).toBe(401);
  });

  it("PUT /gpu-models/{model} creates and updates an entry", async () => {
    const created = await admin("PUT", "/gpu-models/l40s", { ...GPU_MODELS.rtx4090, display_name: "NVIDIA L40S", vram_gb: 48 });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ model: "l40s", ...GPU_MODELS.rtx4090, display_name: "NVIDIA L40S", vram_gb: 48 });
    const updated = await admin("PUT", "/gpu-models/l40s", { ...GPU_MODELS.rtx4090, display_name: "L40S", vram_gb: 48, price_hour_micros: 1 });
    expect(updated.body.price_hour_micros).toBe(1);
  });

  it.each([
    [{ ...GPU_MODELS.rtx4090, price_hour_micros: 1.5 }, "price_hour_micros"],
    [{ ...GPU_MODELS.rtx4090, price_hour_micros: -1 }, "price_hour_micros"],
    [{ ...GPU_MODELS.rtx4090, vram_gb: "24" }, "vram_gb"],
    [{ ...GPU_MODELS.rtx4090, extra: 1 }, "extra"],
    [{ display_name: "x" }, "vram_gb"],
  ])("PUT /gpu-models with %j is 400 invalid naming %s", async (body, field) => {
    const { status, body: error } = await admin("PUT", "/gpu-models/x1", body);
    expect(status).toBe(400);
    expect(error.error).toBe("invalid");
    expect(error.message).toContain(field);
  });

  it("a model id with upper case or slashes is 400 invalid", async () => {
    const { status, body } = await admin("PUT", "/gpu-models/RTX_4090", GPU_MODELS.rtx4090);
    expect(status).toBe(400);
    expect(body.error).toBe("invalid");
  });

  it("POST /machines returns an id and an agent token shown once; GET lists it without the token", async () => {
    const created = await admin("POST", "/machines", { name: "rack-7" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), agent_token: expect.stringMatching(/^gma_\d+_[a-z2-7]{32}$/) });
    const list = await admin("GET", "/machines");
    const entry = (list.body.items as Record<string, unknown>[]).find((m) => m.id === created.body.id);
    expect(entry).toEqual({
      id: created.body.id, name: "rack-7", online: false, degraded: "", gpus: [], free_gpus: 0, last_seen_at: null, agent_version: "", driver_version: "", cuda_version: "", disk: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(created.body.agent_token as string);
  });

  it("POST /accounts with no body creates an empty account", async () => {
    const response = await call("POST", "/admin/v1/accounts", { key: "test-admin-token-at-least-32-bytes-long" });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^acc-[a-z2-7]{16}$/), referral_code: expect.any(String), created_at: expect.any(String), email: null, name: expect.stringMatching(/^acc-/), balance_micros: 0, low_balance_micros: 5_000_000, max_gpus: 16, frozen: false, frozen_reason: null,
    });
  });

  it("credits and debits change the balance and the ledger always sums to it", async () => {
    const { id, key } = await newAccount(5_000_000);
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: 2_500_000, note: "promo" })).body).toEqual({ balance_micros: 7_500_000 });
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: -500_000 })).body).toEqual({ balance_micros: 7_000_000 });
    expect((await callJson("GET", "/v1/me", { key })).body.balance_micros).toBe(7_000_000);
    const audit = await auditLedger(id);
    expect(audit).toEqual({ balance_micros: 7_000_000, ledger_sum_micros: 7_000_000, ledger_rows: 3 });
  });

  it("a fractional credit is 400 invalid and changes nothing", async () => {
    const { id } = await newAccount(1_000_000);
    const { status, body } = await admin("POST", `/accounts/${id}/credits`, { amount_micros: 0.5 });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: expect.stringContaining("amount_micros") });
    expect((await auditLedger(id)).balance_micros).toBe(1_000_000);
  });

  it("a credit or debit that would take the balance past ±$1 billion is 400 invalid and changes nothing: sums stay exact", async () => {
    const { id } = await newAccount(0);
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: 1e15 })).body).toEqual({ balance_micros: 1e15 });
    const over = await admin("POST", `/accounts/${id}/credits`, { amount_micros: 1 });
    expect(over).toMatchObject({ status: 400, body: { error: "invalid", message: "amount_micros: the balance would go beyond ±1000000000000000 micro-dollars" } });
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: -1e15 })).body).toEqual({ balance_micros: 0 });
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: -1e15 })).body).toEqual({ balance_micros: -1e15 });
    expect((await admin("POST", `/accounts/${id}/credits`, { amount_micros: -1 })).status).toBe(400);
    expect(await auditLedger(id)).toEqual({ balance_micros: -1e15, ledger_sum_micros: -1e15, ledger_rows: 3 });
  });

  it("credits to an unknown account are 404 not_found", async () => {
    const { status, body } = await admin("POST", "/accounts/acc-zzzzzzzzzzzzzzzz/credits", { amount_micros: 1 });
    expect(status).toBe(404);
    expect(body.error).toBe("not_found");
  });
});

describe("API keys", () => {
  it("a key is shown once; the list shows its prefix and last use, never the key", async () => {
    const { id } = await newAccount();
    const created = await admin("POST", `/accounts/${id}/keys`, { name: "laptop" });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(new RegExp(`^gpk_${id}_[a-z2-7]{32}$`));
    let listed = (await admin("GET", `/accounts/${id}/keys`)).body.items as Record<string, unknown>[];
    const entry = listed.find((k) => k.id === created.body.id)!;
    expect(entry).toEqual({
      id: created.body.id, name: "laptop", prefix: key.slice(0, 29), created_at: expect.any(String), last_used_at: null,
      scopes: ["*"], instance_ids: null, expires_at: null, monthly_limit_micros: null,
    });
    expect(JSON.stringify(listed)).not.toContain(key);
    await call("GET", "/v1/me", { key });
    listed = (await admin("GET", `/accounts/${id}/keys`)).body.items as Record<string, unknown>[];
    expect(listed.find((k) => k.id === created.body.id)!.last_used_at).toEqual(expect.any(String));
  });

  it("the operator's key takes scopes and an expiry as POST /v1/keys does, checked the same way", async () => {
    const { id } = await newAccount();
    const created = await admin("POST", `/accounts/${id}/keys`, { name: "reader", scopes: ["instances:read"] });
    expect(created).toMatchObject({ status: 201, body: { scopes: ["instances:read"], instance_ids: null, expires_at: null } });
    const key = created.body.key as string;
    expect((await call("GET", "/v1/instances", { key })).status).toBe(200);
    expect((await call("GET", "/v1/keys", { key })).status).toBe(403);
    const past = await admin("POST", `/accounts/${id}/keys`, { expires_at: "2000-01-01T00:00:00Z" });
    expect(past).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^expires_at: must be in the future/) } });
  });

  it("revocation takes effect on the very next request", async () => {
    const { id, key } = await newAccount();
    const keyId = ((await admin("GET", `/accounts/${id}/keys`)).body.items as { id: string }[])[0]!.id;
    expect((await call("GET", "/v1/me", { key })).status).toBe(200);
    expect((await admin("DELETE", `/accounts/${id}/keys/${keyId}`)).status).toBe(204);
    expect((await call("GET", "/v1/me", { key })).status).toBe(401);
    expect((await call("GET", "/v1/instances", { key })).status).toBe(401);
    expect((await admin("DELETE", `/accounts/${id}/keys/${keyId}`)).status).toBe(404);
  });

  it("an account holds at most 50 live keys; revoking one makes room", async () => {
    const { id } = await newAccount();
    for (let i = 2; i <= 50; i++) expect((await admin("POST", `/accounts/${id}/keys`, {})).status).toBe(201);
    const refused = await admin("POST", `/accounts/${id}/keys`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("conflict");
    const keys = (await admin("GET", `/accounts/${id}/keys`)).body.items as { id: string }[];
    expect(keys.length).toBe(50);
    await admin("DELETE", `/accounts/${id}/keys/${keys[0]!.id}`);
    expect((await admin("POST", `/accounts/${id}/keys`, {})).status).toBe(201);
  });
});
