// A failure's message becomes one bounded line before it reaches status_message.
import { describe, expect, it } from "vitest";
import { STATUS_LINE_CHARS, statusLine } from "./status-line.ts";

describe("statusLine", () => {
  it("keeps a one-line message as it is", () => {
    expect(statusLine("create failed: the pull of x made no progress for 5 minutes")).toBe("create failed: the pull of x made no progress for 5 minutes");
  });

  it("keeps only the first non-empty line, marking the cut", () => {
    expect(statusLine("\ncreate failed: manifest unknown:\r\n<html>\n<body>secret</body>\n</html>")).toBe("create failed: manifest unknown:…");
  });

  it("cuts a line longer than STATUS_LINE_CHARS to that length", () => {
    const line = statusLine(`create failed: ${"x".repeat(5000)}`);
    expect(line).toHaveLength(STATUS_LINE_CHARS);
    expect(line.endsWith("x…")).toBe(true);
  });
});
