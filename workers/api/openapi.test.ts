import { describe, expect, it } from "vitest";
import committed from "../../openapi.json";
import { call } from "../../test/support/workerd/api-client.ts";

const SPEC_ROUTES: [string, string][] = [
  ["get", "/me"], ["get", "/gpus"], ["get", "/catalog"], ["get", "/instances"], ["post", "/instances"],
  ["get", "/instances/{id}"], ["patch", "/instances/{id}"], ["get", "/instances/{id}/events"],
  ["post", "/instances/{id}/stop"], ["post", "/instances/{id}/start"], ["delete", "/instances/{id}"],
];
const SELF_SERVICE_ROUTES: [string, string][] = [["get", "/keys"], ["post", "/keys"], ["delete", "/keys/{id}"], ["get", "/billing/ledger"]];
const AUTH_ROUTES: [string, string][] = [["post", "/auth/signup"], ["post", "/auth/login"], ["post", "/auth/logout"], ["post", "/auth/password"]];

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>;
}
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, string>>; schemas: Record<string, unknown> };
};

async function openapi(): Promise<Doc> {
  const response = await call("GET", "/v1/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as Doc;
}

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every implemented route of the spec", async () => {
    const doc = await openapi();
    expect(doc.openapi).toBe("3.1.0");
    for (const [method, path] of SPEC_ROUTES) expect(doc.paths[`/v1${path}`]?.[method], `${method} ${path}`).toBeDefined();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/admin/v1")).length).toBeGreaterThanOrEqual(5);
  });

  it("documents the session cookie as a security scheme beside the API key on every /v1 route but /auth", async () => {
    const doc = await openapi();
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "gpr_session" });
    for (const [method, path] of [...SPEC_ROUTES, ...SELF_SERVICE_ROUTES]) {
      const operation = doc.paths[`/v1${path}`]![method]!;
      expect(operation.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
      expect(operation.responses["401"], `${method} ${path}`).toBeDefined();
      if (method !== "get") expect(operation.responses["403"], `${method} ${path} documents forbidden`).toBeDefined();
    }
  });

  it("documents the auth and self-service routes with their bodies, answers and errors", async () => {
    const doc = await openapi();
    const op = (method: string, path: string) => doc.paths[`/v1${path}`]![method]!;
    for (const [method, path] of AUTH_ROUTES) expect(op(method, path), `${method} ${path}`).toBeDefined();
    expect(op("post", "/auth/signup").requestBody!.content["application/json"]).toBeDefined();
    expect(Object.keys(op("post", "/auth/signup").responses).sort()).toEqual(["201", "400", "403", "409", "413", "429"]);
    expect(op("post", "/auth/signup").responses["201"]!.headers).toHaveProperty("set-cookie");
    expect(Object.keys(op("post", "/auth/login").responses).sort()).toEqual(["200", "400", "401", "403", "413", "429"]);
    expect(op("post", "/auth/logout").security).toEqual([{ sessionCookie: [] }]);
    expect(op("post", "/auth/password").security).toEqual([{ sessionCookie: [] }]);
    expect(op("post", "/auth/password").requestBody!.content["application/json"]).toBeDefined();
    expect(Object.keys(op("post", "/keys").responses).sort()).toEqual(["201", "400", "401", "403", "409", "413", "429"]);
    expect(Object.keys(op("delete", "/keys/{id}").responses).sort()).toEqual(["204", "401", "403", "404", "429"]);
    expect(op("get", "/billing/ledger").parameters!.map((p) => `${p.in}:${p.name}`).sort()).toEqual(["query:cursor", "query:limit"]);
    expect(op("get", "/billing/ledger").responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/LedgerPage" });
    expect(JSON.stringify(doc.components.schemas.LedgerPage)).toContain("balance_after_micros");
    expect(JSON.stringify(doc.components.schemas.Me)).toContain("email");
    expect(op("post", "/keys").responses["403"]!.description).toContain("forbidden");
  });

  it("documents the body rule's answers, 400 and 413, on every operation with a body", async () => {
    const doc = await openapi();
    const withBody = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).filter(([, operation]) => operation.requestBody).map(([method, operation]) => ({ key: `${method} ${path}`, operation })));
    expect(withBody.length).toBeGreaterThanOrEqual(10);
    for (const { key, operation } of withBody) {
      expect(operation.responses["400"], key).toBeDefined();
      expect(operation.responses["413"]?.description, key).toBe("Request body larger than 1 MiB (payload_too_large)");
    }
  });

  it("is the committed openapi.json, with the request's origin as server", async () => {
    const served = (await (await call("GET", "/v1/openapi.json")).json()) as typeof committed;
    expect(served.servers).toEqual([{ url: "http://gpu.test" }]);
    expect({ ...served, servers: committed.servers }).toEqual(committed);
  });
});
