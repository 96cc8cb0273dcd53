// Every /v1 route a key or a session calls, with a caller of every role: generated from the OpenAPI
// document, so a route the role table lacks, or a rule the account does not hold, fails here. A role
// the table does not name gets 403 forbidden naming the roles that may; one it names is not refused
// for its role (what it then gets depends on the route: 404 for the absent ids used here, 201, 200…).
import { beforeAll, describe, expect, it } from "vitest";
import { ROLES, roleRefusalMessage, type Role } from "../../../durable-objects/contracts/members.ts";
import { call, callJson } from "../../../test/support/workerd/api-client.ts";
import { joined, ownedAccount, type Person } from "../../../test/support/workerd/members.ts";
import { PARAMS, REQUESTS } from "../../../test/support/workerd/route-samples.ts";
import { ROUTE_ROLES } from "./route-roles.ts";

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  "x-roles"?: Role[];
}

const document = async () => (await callJson<{ paths: Record<string, Record<string, Operation>> }>("GET", "/v1/openapi.json")).body;

/**
 * The ways into an instance's insides, documented beside the API: they admit the roles that may use
 * instances (INSTANCE_USE_ROLES) as the proxy's fast path and the account do, not a route's rule.
 */
const INSTANCE_WAYS = new Set(["GET /instances/{id}/ssh", "GET /instances/{id}/terminal"]);
const isInstanceWay = (route: string) => INSTANCE_WAYS.has(route) || route.includes("/proxy/{port}/");
/** A person's own session (sign-out, password, switching accounts) is theirs whatever their roles: /auth/ has no role rule. */
const isPersonsOwn = (route: string) => route.split(" ")[1]!.startsWith("/auth/");

/** "METHOD /path" (as the role table names it) of every operation a key or a session may call. */
async function callerOperations(): Promise<Map<string, Operation>> {
  const operations = new Map<string, Operation>();
  for (const [path, methods] of Object.entries((await document()).paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const callers = operation.security?.some((scheme) => "bearerAuth" in scheme || "sessionCookie" in scheme);
      const route = `${method.toUpperCase()} ${path.slice("/v1".length)}`;
      if (callers && path.startsWith("/v1/") && !isInstanceWay(route) && !isPersonsOwn(route)) operations.set(route, operation);
    }
  }
  return operations;
}

describe("the role table", () => {
  it("names every route a key or a session may call, and only those, with the roles the OpenAPI document shows", async () => {
    const operations = await callerOperations();
    expect([...operations.keys()].sort()).toEqual(Object.keys(ROUTE_ROLES).sort());
    for (const [route, operation] of operations) expect(operation["x-roles"], route).toEqual(ROUTE_ROLES[route]);
  });
});

describe("every route with every role", () => {
  let accountId: string;
  const callers = new Map<Role, Person>();

  beforeAll(async () => {
    const account = await ownedAccount();
    accountId = account.id;
    callers.set("owner", account.owner);
    for (const role of ROLES.filter((r) => r !== "owner")) callers.set(role, await joined(accountId, account.owner.key, role));
  });

  const routes = Object.entries(ROUTE_ROLES);
  it.each(routes.flatMap(([route, may]) => ROLES.map((role) => [route, role, may.includes(role)] as const)))(
    "%s as %s (may: %s)",
    async (route, role, may) => {
      const [method, template] = route.split(" ") as [string, string];
      const sample = REQUESTS[route] ?? {};
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name] ?? `unknown-${name}`);
      const response = await call(method, `/v1${path}${sample.query ?? ""}`, {
        key: callers.get(role)!.key, body: sample.body, rawBody: sample.rawBody, headers: sample.headers,
      });
      const text = await response.text();
      const body = text.startsWith("{") ? (JSON.parse(text) as { error?: string; message?: string }) : {};
      if (may) {
        expect(response.status, `${route} as ${role}: ${text}`).not.toBe(401);
        expect(body.error, `${route} as ${role}: ${text}`).not.toBe("forbidden");
      } else {
        expect({ status: response.status, ...body }, `${route} as ${role}`).toEqual({
          status: 403, error: "forbidden", message: roleRefusalMessage(ROUTE_ROLES[route]!, role),
        });
      }
    },
  );

  it("has a request for every route with a body", async () => {
    const withBody = [...(await callerOperations())].filter(([, operation]) => operation.requestBody).map(([route]) => route);
    const required = withBody.filter((route) => !(route in REQUESTS) && route !== "POST /instances/{id}/ports/{port}/open");
    expect(required).toEqual([]);
  });
});
