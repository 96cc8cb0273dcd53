// Where an API error is shown: beside the form field its message names ("gpu_count: must be ..."),
// or for the whole form. Messages are the API's own, shown unchanged.
import { GpuApiError } from "../../client/index.ts";

/** The request field an API error message names, e.g. "env" for "env.FOO: ...", else null. */
export function fieldOf(message: string): string | null {
  return /^([a-z_]+)(?:[.[][^:]*)?: /.exec(message)?.[1] ?? null;
}

export const messageOf = (error: unknown): string =>
  error instanceof GpuApiError
    ? error.message
    : `the service could not be reached (${error instanceof Error ? error.message : String(error)}); try again`;

/** The message of `error` when it belongs beside `field`. */
export function fieldError(error: unknown, field: string): string | null {
  return error instanceof GpuApiError && fieldOf(error.message) === field ? error.message : null;
}

/** The message of `error` when it names none of `fields` (the form shows it as a whole). */
export function formError(error: unknown, fields: readonly string[]): string | null {
  if (!error) return null;
  const field = error instanceof GpuApiError ? fieldOf(error.message) : null;
  return field && fields.includes(field) ? null : messageOf(error);
}

export const isUnauthorized = (error: unknown) => error instanceof GpuApiError && error.status === 401;

export const isForbidden = (error: unknown) => error instanceof GpuApiError && error.status === 403;
