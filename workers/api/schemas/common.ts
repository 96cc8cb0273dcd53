// Schemas shared by many routes: the error body, the instance id path parameter, and the JSON
// request bodies and responses that wrap a schema.
import { z } from "@hono/zod-openapi";
import { CALLER_REFUSED } from "../../../durable-objects/contracts/refusals.ts";

export const ErrorBody = z
  .object({
    error: z.string().openapi({ description: "Machine-readable code such as `invalid`, `not_found` or `conflict`; a code always comes with the same HTTP status", example: "invalid" }),
    message: z.string().openapi({ description: "What went wrong and why, for people; for `invalid`, the field and the rule it breaks", example: "gpu_count: must be an integer from 1 to 8" }),
  })
  .openapi("Error");

export const INSTANCE_ID_DESCRIPTION = "The instance's id: `i-` and 16 lowercase base32 characters";

export const InstanceIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: INSTANCE_ID_DESCRIPTION }, example: "i-abcdefghijklmnop" }),
});

export const timestamp = z.string().openapi({ format: "date-time", example: "2026-11-21T12:00:00.000Z" });

/** A response described by `description`, with a JSON body of `schema`. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

/** A JSON request body of `schema`; an optional one may be left out, which reads as `{}`. */
export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({ required, content: { "application/json": { schema } } });

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 429 | 502;

/** The 403 of a launch or start, which a frozen account gets besides the Origin rule's. */
export const launchForbidden = {
  403: json(ErrorBody, "The account is frozen (account_frozen: launches and starts are refused until the operator clears it), the caller's role may not do this, or a session's request did not come from this service's pages (forbidden)"),
};

/** The error responses a route can give, documented with the one error shape. */
export function errors(...statuses: ErrorStatus[]) {
  const described: Record<number, string> = {
    400: "Malformed request (bad_request) or invalid parameter (invalid)",
    401: `${CALLER_REFUSED} (unauthorized)`,
    403: "The caller's role may not do this (the message names the roles that may), or a session's change came without this service's Origin (forbidden)",
    402: "Balance does not cover one hour (insufficient_funds), or the account's monthly budget or the key's monthly limit is reached (budget_exceeded)",
    404: "No such instance or key in the account (not_found)",
    409: "no_capacity, gpus_busy, conflict or not_running",
    413: "Request body larger than 512 MB (payload_too_large)",
    429: "Too many requests (rate_limited)",
    502: "Nothing answers on the port, or the host is offline (upstream_unavailable)",
  };
  return Object.fromEntries([...statuses, 429].map((status) => [status, json(ErrorBody, described[status]!)]));
}
