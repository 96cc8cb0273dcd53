import { describe, expect, it } from "vitest";
import { takeEvents } from "./sse-lines.ts";

describe("takeEvents", () => {
  it("gives the data of each complete event and keeps the unfinished rest", () => {
    expect(takeEvents('data: {"line":"a"}\n\ndata: {"line":"b"}\n\ndata: {"li')).toEqual({ data: ['{"line":"a"}', '{"line":"b"}'], rest: 'data: {"li' });
  });

  it("skips comments and reads CRLF line ends", () => {
    expect(takeEvents(": keep-alive\n\ndata: x\r\n\r\n")).toEqual({ data: ["x"], rest: "" });
  });

  it("joined pieces give the same events as the whole", () => {
    const whole = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
    let rest = "";
    const seen: string[] = [];
    for (const piece of [whole.slice(0, 5), whole.slice(5, 13), whole.slice(13)]) {
      const taken = takeEvents(rest + piece);
      seen.push(...taken.data);
      rest = taken.rest;
    }
    expect(seen).toEqual(["1", "2", "3"]);
    expect(rest).toBe("");
  });
});
