import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INSTANCE_USE_ROLES, ROLES as API_ROLES } from "../../durable-objects/contracts/members.ts";
import { ROUTE_ROLES } from "../../workers/api/roles/route-roles.ts";
import { DASHBOARD_ROUTE_ROLES, mayCall, ROLES, SHELL_ROLES } from "./roles.ts";

describe("the dashboard's copy of the route table", () => {
  it.each(Object.entries(DASHBOARD_ROUTE_ROLES))("gives %s the roles the API admits", (route, roles) => {
    expect(ROUTE_ROLES[route], `${route} is not a route of workers/api/roles/route-roles.ts`).toBeDefined();
    expect([...roles].sort()).toEqual([...ROUTE_ROLES[route]!].sort());
  });

  it("holds every route by which the dashboard changes the account (sign-in's own routes apart)", () => {
    const dashboard = join(import.meta.dirname, "..");
    const sources = readdirSync(dashboard, { recursive: true, encoding: "utf8" }).filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".test.ts"));
    const calls = sources.flatMap((file) =>
      [...readFileSync(join(dashboard, file), "utf8").matchAll(/api\.(POST|PUT|PATCH|DELETE)\("\/v1(\/[^"]*)"/g)].map((match) => `${match[1]} ${match[2]}`),
    );
    const changes = calls.filter((route) => !route.includes(" /auth/"));
    expect(changes.length).toBeGreaterThan(10);
    expect(changes.filter((route) => !(route in DASHBOARD_ROUTE_ROLES))).toEqual([]);
  });

  it("knows every role of the API", () => {
    expect(ROLES).toEqual(API_ROLES);
  });

  it("opens the shell to the roles that reach an instance's insides", () => {
    expect([...SHELL_ROLES].sort()).toEqual([...INSTANCE_USE_ROLES].sort());
  });

  it("offers a viewer nothing that changes the account, and an owner everything", () => {
    const routes = Object.keys(DASHBOARD_ROUTE_ROLES) as (keyof typeof DASHBOARD_ROUTE_ROLES)[];
    expect(routes.filter((route) => mayCall("viewer", route))).toEqual([]);
    expect(routes.filter((route) => !mayCall("owner", route))).toEqual([]);
  });
});
