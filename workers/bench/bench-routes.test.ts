import { describe, expect, it } from "vitest";
import { call } from "../../test/support/workerd/api-client.ts";

describe("bench routes", () => {
  it("are off unless BENCH_ROUTES is 1: 404 like any unknown route", async () => {
    for (const path of ["/bench/noop", "/bench/passthrough/8000/"]) {
      const response = await call("GET", path);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: "not_found", message: expect.any(String) });
    }
  });
});
