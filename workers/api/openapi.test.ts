import { describe, expect, it } from "vitest";
import committed from "../../openapi.json";
import { call } from "../../test/support/workerd/api-client.ts";

const SPEC_ROUTES: [string, string][] = [
  ["get", "/me"], ["get", "/gpus"], ["get", "/catalog"], ["get", "/instances"], ["post", "/instances"],
  ["get", "/instances/{id}"], ["patch", "/instances/{id}"], ["get", "/instances/{id}/events"],
  ["post", "/instances/{id}/stop"], ["post", "/instances/{id}/start"], ["delete", "/instances/{id}"],
];

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every implemented route of the spec", async () => {
    const response = await call("GET", "/v1/openapi.json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    for (const [method, path] of SPEC_ROUTES) expect(doc.paths[`/v1${path}`]?.[method], `${method} ${path}`).toBeDefined();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/admin/v1")).length).toBeGreaterThanOrEqual(5);
  });

  it("is the committed openapi.json, with the request's origin as server", async () => {
    const served = (await (await call("GET", "/v1/openapi.json")).json()) as typeof committed;
    expect(served.servers).toEqual([{ url: "http://gpu.test" }]);
    expect({ ...served, servers: committed.servers }).toEqual(committed);
  });
});
