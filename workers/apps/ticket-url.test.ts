// The ticket in an app address, and the address the redirect goes to without it.
import { describe, expect, it } from "vitest";
import { ticketOf, withoutTicket } from "./ticket-url.ts";

const BASE = "http://i-aaabcdefghijklmn-8888.localhost:8787";

describe("app address tickets", () => {
  it("reads the ticket, or null without one", () => {
    expect(ticketOf(`${BASE}/?gpr_ticket=gpt_x`)).toBe("gpt_x");
    expect(ticketOf(`${BASE}/lab?a=1`)).toBeNull();
  });

  it.each([
    ["/?gpr_ticket=T", "/"],
    ["/lab/tree?gpr_ticket=T", "/lab/tree"],
    ["/lab?a=%20b&gpr_ticket=T&c", "/lab?a=%20b&c"],
    ["/?gpr_ticket=T&gpr_ticket=U&x=1", "/?x=1"],
    ["/?gpr%5Fticket=T&x=%zz", "/?x=%zz"],
    ["/?x=gpr_ticket&gpr_ticketx=1", "/?x=gpr_ticket&gpr_ticketx=1"],
    ["/a%2Fb", "/a%2Fb"],
  ])("%s without its ticket is %s, the rest exactly as sent", (path, expected) => {
    expect(withoutTicket(BASE + path)).toBe(BASE + expected);
  });
});
