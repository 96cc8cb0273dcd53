// Every /v1 route a key or a session calls, with a key holding each scope alone: generated from the
// route table's scopes (ROUTE_SCOPES, held equal to the OpenAPI document's `x-scope`), so a route whose
// scope the account does not hold fails here. The keys are an owner's, so their role never refuses: a
// route needing a scope the key's grants is not refused for it, any other is 403 forbidden naming the
// scope it needs.
import { beforeAll, describe, expect, it } from "vitest";
import { grants, scopeRefusalMessage, SCOPES, type Scope } from "../../../durable-objects/contracts/scopes.ts";
import { call, callJson } from "../../../test/support/workerd/api-client.ts";
import { ownedAccount } from "../../../test/support/workerd/members.ts";
import { PARAMS, REQUESTS } from "../../../test/support/workerd/route-samples.ts";
import { ROUTE_ROLES, ROUTE_SCOPES, SCOPE_ROLES } from "./route-roles.ts";

/** Renaming the account needs account:write besides the route's billing:write (tested apart): here the balance alert alone. */
const SAMPLES: typeof REQUESTS = { ...REQUESTS, "PATCH /account": { body: { low_balance_micros: 1_000_000 } } };

describe("the scope table", () => {
  it("names a scope (or none) for every route of the role table, as the OpenAPI document shows it", async () => {
    expect(Object.keys(ROUTE_SCOPES).sort()).toEqual(Object.keys(ROUTE_ROLES).sort());
    const { body } = await callJson<{ paths: Record<string, Record<string, { "x-scope"?: Scope | null }>> }>("GET", "/v1/openapi.json");
    for (const route of Object.keys(ROUTE_SCOPES)) {
      const [method, path] = route.split(" ") as [string, string];
      expect(body.paths[`/v1${path}`]?.[method.toLowerCase()]?.["x-scope"], route).toBe(ROUTE_SCOPES[route]);
    }
  });

  it("gives each scope the roles of the routes needing it: billing:write is the payers', instances:write the workers'", () => {
    expect(SCOPE_ROLES["billing:write"]).toEqual(["owner", "admin", "billing"]);
    expect(SCOPE_ROLES["instances:write"]).toEqual(["owner", "admin", "developer"]);
    expect(SCOPE_ROLES["instances:read"]).toEqual(["owner", "admin", "developer", "billing", "viewer"]);
  });
});

describe("every route with a key of each scope", () => {
  const keys = new Map<Scope, string>();

  beforeAll(async () => {
    const account = await ownedAccount();
    for (const scope of SCOPES) {
      const made = await callJson<{ key: string }>("POST", "/v1/keys", { key: account.owner.key, body: { name: scope, scopes: [scope] } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      keys.set(scope, made.body.key);
    }
  });

  const routes = Object.entries(ROUTE_SCOPES);
  it.each(routes.flatMap(([route, needs]) => SCOPES.map((scope) => [route, scope, needs === null || grants([scope], needs)] as const)))(
    "%s with a key of %s (granted: %s)",
    async (route, scope, granted) => {
      const [method, template] = route.split(" ") as [string, string];
      const sample = SAMPLES[route] ?? {};
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name] ?? `unknown-${name}`);
      const response = await call(method, `/v1${path}${sample.query ?? ""}`, {
        key: keys.get(scope)!, body: sample.body, rawBody: sample.rawBody, headers: sample.headers,
      });
      const text = await response.text();
      const body = text.startsWith("{") ? (JSON.parse(text) as { error?: string; message?: string }) : {};
      if (granted) {
        expect(response.status, `${route} with ${scope}: ${text}`).not.toBe(401);
        expect(body.error, `${route} with ${scope}: ${text}`).not.toBe("forbidden");
      } else {
        expect({ status: response.status, ...body }, `${route} with ${scope}`).toEqual({
          status: 403, error: "forbidden", message: scopeRefusalMessage(ROUTE_SCOPES[route]!),
        });
      }
    },
  );
});
