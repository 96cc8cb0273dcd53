// The logs request the Worker hands the MachineDO: it round-trips through its URL, and a malformed
// one is refused with the reason (as the MachineDO's 400), never trusted.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decodeLogsRequest, logsRequestUrl, type LogsRequest } from "./logs-request.ts";

const request: LogsRequest = { instanceId: "i-abcdefghijklmnop", tail: 10_000, follow: true, format: "events", requestId: "req_abcdefghijklmnopqrst",
  opener: { kind: "key", key_sha256: "ab".repeat(32) } };

describe("logs request", () => {
  it("round-trips through the MachineDO fetch's URL", () => {
    expect(decodeLogsRequest(new URL(logsRequestUrl(request)))).toEqual({ ok: true, request });
    const text = { ...request, tail: 1, follow: false, format: "text" as const, requestId: "", opener: { kind: "session" as const, session_id: "ses-abcdefghijkl" } };
    expect(decodeLogsRequest(new URL(logsRequestUrl(text)))).toEqual({ ok: true, request: text });
  });

  it.each([
    ["a tail of 0", { tail: "0" }, "tail"],
    ["a tail over 10,000", { tail: "10001" }, "tail"],
    ["a follow that is not true or false", { follow: "yes" }, "follow"],
    ["an unknown format", { format: "xml" }, "format"],
    ["a malformed instance id", { instanceId: "i-UPPER" }, "instanceId"],
    ["a malformed request id", { requestId: "req_<script>" }, "requestId"],
    ["an opener that is not JSON", { opener: "{oops" }, "opener"],
    ["an opener of no known kind", { opener: JSON.stringify({ kind: "instance_token" }) }, "opener"],
    ["a key opener that is no SHA-256", { opener: JSON.stringify({ kind: "key", key_sha256: "gpk_x" }) }, "opener.key_sha256"],
  ])("refuses %s, naming where", (_, change, where) => {
    const url = new URL(logsRequestUrl(request));
    for (const [name, value] of Object.entries(change)) url.searchParams.set(name, value);
    const decoded = decodeLogsRequest(url);
    expect(decoded).toEqual({ ok: false, reason: expect.stringContaining(`rejected at ${where}`) });
  });

  it("the MachineDO answers a malformed one 400 bad_request with the reason", async () => {
    const response = await env.MACHINES.getByName("logs-request-test").fetch("https://machine/logs?instanceId=i-abcdefghijklmnop&tail=0&follow=false&format=text");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "bad_request", message: expect.stringContaining("logs request rejected at tail") });
  });
});
