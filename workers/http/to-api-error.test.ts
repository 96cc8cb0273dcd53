import { HTTPException } from "hono/http-exception";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../core/errors.ts";
import { errorResponseFor, toApiError, unexpectedErrorOf } from "./to-api-error.ts";

describe("toApiError", () => {
  it("passes an ApiError through unchanged", () => {
    const error = new ApiError("conflict", "taken");
    expect(toApiError(error)).toBe(error);
  });

  it.each([[400], [415]])("maps Hono's HTTPException %i (a body it cannot take) to 400 bad_request, never 500", (status) => {
    const mapped = toApiError(new HTTPException(status as 400 | 415, { message: "Unsupported Media Type" }));
    expect({ code: mapped.code, status: mapped.status }).toEqual({ code: "bad_request", status: 400 });
  });

  it("maps HTTPException 413 to payload_too_large", () => {
    expect(toApiError(new HTTPException(413)).code).toBe("payload_too_large");
  });

  it("turns anything else into 500 internal with a message that shows nothing of it", () => {
    const mapped = toApiError(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect({ code: mapped.code, message: mapped.message }).toEqual({ code: "internal", message: "internal error; try again" });
  });
});

describe("errorResponseFor", () => {
  it("keeps an unexpected error with its 500 response, for the access line; the client sees nothing of it", async () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'x')");
    const response = errorResponseFor(error, "req_test");
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toBe("req_test");
    expect(await response.json()).toEqual({ error: "internal", message: "internal error; try again" });
    expect(unexpectedErrorOf(response)).toBe(error);
  });

  it("keeps nothing for an ApiError, a deliberate 500 included", () => {
    expect(unexpectedErrorOf(errorResponseFor(new ApiError("conflict", "taken")))).toBeUndefined();
    expect(unexpectedErrorOf(errorResponseFor(new ApiError("internal", "the host did not confirm in time")))).toBeUndefined();
  });

  it("a Hono app whose onError renders with it hands the same response out, error attached", async () => {
    const app = new Hono();
    const error = new RangeError("boom");
    app.get("/throws", () => {
      throw error;
    });
    app.onError((thrown) => errorResponseFor(thrown));
    const response = await app.request("/throws");
    expect(response.status).toBe(500);
    expect(unexpectedErrorOf(response)).toBe(error);
  });
});
