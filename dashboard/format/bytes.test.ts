import { describe, expect, it } from "vitest";
import { formatBytes } from "./bytes.ts";

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [999, "999 B"],
    [1000, "1.0 kB"],
    [1_500_000, "1.5 MB"],
    [999_949, "999.9 kB"],
    [999_960, "1.0 MB"],
    [12_300_000_000, "12.3 GB"],
    [10_000_000_000_000, "10.0 TB"],
    [2e18, "2000.0 PB"],
  ])("%i bytes → %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
