// A browser sends the session cookie with requests that other sites cause (forms, and instance web
// apps that are same-site with the API in production, where SameSite=Lax does not help). Such a
// request changing anything must show, in `Origin`, that it comes from this service's own pages.
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../../../core/errors.ts";

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const isUnsafeMethod = (method: string) => UNSAFE_METHODS.has(method.toUpperCase());

/** Throws 403 forbidden unless Origin is exactly this service's origin. */
export function requireSameOrigin(c: Context): void {
  const own = new URL(c.req.url).origin;
  const origin = c.req.header("origin");
  if (origin !== own) {
    throw new ApiError(
      "forbidden",
      origin === undefined
        ? `a request signed in with the session cookie that changes something must send Origin: ${own}`
        : `Origin ${origin} is not this service (${own}); requests signed in with the session cookie must come from its own pages`,
    );
  }
}

/**
 * Sign-up and sign-in need no Origin (curl sends none), but a browser always sends one, and a
 * foreign one means another site is signing the browser in to an account of its choosing.
 */
export function refuseForeignOrigin(): MiddlewareHandler {
  return async function refuseForeignOrigin(c, next) {
    if (c.req.header("origin") !== undefined) requireSameOrigin(c);
    await next();
  };
}
