import { describe, expect, it } from "vitest";
import { pageAfterSwitch } from "./after-switch.ts";

describe("the page after switching accounts", () => {
  it("leaves an instance or a volume of the account before for its list", () => {
    expect(pageAfterSwitch("/instances/i-abcdefghijklmnop")).toBe("/instances");
    expect(pageAfterSwitch("/volumes/vol-abcdefghijklmnop")).toBe("/volumes");
  });

  it.each([["/"], ["/instances"], ["/billing?cursor=x"], ["/settings/members"]])("stays on %s", (path) => {
    expect(pageAfterSwitch(path)).toBe(path);
  });
});
