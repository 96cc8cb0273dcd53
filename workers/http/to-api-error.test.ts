import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../core/errors.ts";
import { toApiError } from "./to-api-error.ts";

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

  it("turns anything else into 500 internal with a message that shows nothing of it, and logs it", () => {
    const logged = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const mapped = toApiError(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect({ code: mapped.code, message: mapped.message }).toEqual({ code: "internal", message: "internal error; try again" });
    expect(logged.mock.calls.flat().join(" ")).toContain("Cannot read properties of undefined");
    logged.mockRestore();
  });
});
