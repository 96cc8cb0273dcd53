import { describe, expect, it } from "vitest";
import { matchPath } from "./router.tsx";

describe("matchPath", () => {
  it("matches fixed paths exactly and reads :params, decoded", () => {
    expect(matchPath("/", "/")).toEqual({});
    expect(matchPath("/billing", "/billing?cursor=abc")).toEqual({});
    expect(matchPath("/instances/:id", "/instances/i-abcdefghijklmnop")).toEqual({ id: "i-abcdefghijklmnop" });
    expect(matchPath("/instances/:id", "/instances/a%20b")).toEqual({ id: "a b" });
  });

  it("refuses other paths, longer or shorter ones, and an empty param", () => {
    expect(matchPath("/instances", "/instances/i-x")).toBeNull();
    expect(matchPath("/instances/:id", "/instances")).toBeNull();
    expect(matchPath("/instances/:id", "/instances/")).toBeNull();
    expect(matchPath("/settings/keys", "/settings/password")).toBeNull();
  });
});
