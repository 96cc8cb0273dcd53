import { describe, expect, it } from "vitest";
import { pageAfterSignIn } from "./after-sign-in.ts";

describe("the page after sign-in", () => {
  it("returns to the page that asked for a sign-in, query included", () => {
    expect(pageAfterSignIn("/login?next=%2Fbilling")).toBe("/billing");
    expect(pageAfterSignIn(`/login?next=${encodeURIComponent("/instances/i-abc?x=1")}`)).toBe("/instances/i-abc?x=1");
  });

  it.each([["/login"], ["/signup"], ["/login?next="], ["/login?next=billing"], ["/login?next=%2F%2Fevil.example"], ["/login?next=%2F%5Cevil.example"], ["/login?next=https%3A%2F%2Fevil.example"]])(
    "goes to the overview from %s: never off this site",
    (location) => {
      expect(pageAfterSignIn(location)).toBe("/");
    },
  );
});
