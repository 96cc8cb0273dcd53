// Close codes across the proxy: which may be sent, and closing without throwing.
import { describe, expect, it } from "vitest";
import { closeQuietly, mayBeSentInCloseFrame, sendableCloseCode } from "./close-codes.ts";

describe("close codes", () => {
  it.each([1000, 1001, 1003, 1007, 1009, 1011, 1014, 3000, 4001, 4999])("%i passes through", (code) => {
    expect(mayBeSentInCloseFrame(code)).toBe(true);
    expect(sendableCloseCode(code)).toBe(code);
  });

  it.each([999, 1004, 1005, 1006, 1015, 2999, 5000])("%i may not be sent and becomes 1000", (code) => {
    expect(mayBeSentInCloseFrame(code)).toBe(false);
    expect(sendableCloseCode(code)).toBe(1000);
  });

  it("closeQuietly sends a sendable code and swallows a socket's refusal", () => {
    const closes: [number | undefined, string | undefined][] = [];
    closeQuietly({ close: (code, reason) => void closes.push([code, reason]) }, 1006, "gone");
    closeQuietly({ close: (code, reason) => void closes.push([code, reason]) }, 4002, "bye");
    expect(closes).toEqual([[1000, "gone"], [4002, "bye"]]);
    expect(() => closeQuietly({ close: () => { throw new Error("already closed"); } }, 1000, "")).not.toThrow();
  });
});
