import { describe, expect, it } from "vitest";
import { mayChange, rolesToGive } from "./member-rules.ts";

describe("what a manager may do to a member", () => {
  it("lets an owner change anyone and give any role", () => {
    expect(mayChange("owner", "owner")).toBe(true);
    expect(mayChange("owner", "viewer")).toBe(true);
    expect(rolesToGive("owner")).toEqual(["owner", "admin", "developer", "billing", "viewer"]);
  });

  it("keeps an admin's hands off owners: none changed, none made", () => {
    expect(mayChange("admin", "owner")).toBe(false);
    expect(mayChange("admin", "admin")).toBe(true);
    expect(mayChange("admin", "developer")).toBe(true);
    expect(rolesToGive("admin")).toEqual(["admin", "developer", "billing", "viewer"]);
  });

  it.each([["developer"], ["billing"], ["viewer"]] as const)("lets a %s change no one", (role) => {
    expect(mayChange(role, "viewer")).toBe(false);
    expect(rolesToGive(role)).toEqual([]);
  });
});
