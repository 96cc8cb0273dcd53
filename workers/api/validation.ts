// The one validation hook of every route: a schema violation becomes 400 `invalid` naming the field
// and the rule; a body that is not a JSON object is 400 `bad_request`.
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../core/errors.ts";

type HookResult = { success: true } | { success: false; error: z.ZodError; target: string };

export async function validationHook(result: HookResult, c: Context): Promise<void> {
  if (result.success) return;
  const body = result.target === "json" ? await c.req.json().catch(() => undefined) : undefined;
  if (result.target === "json" && (typeof body !== "object" || body === null || Array.isArray(body))) {
    throw new ApiError("bad_request", "the request body must be a JSON object");
  }
  const messages = result.error.issues.map((issue) => describeIssue(issue, body as Record<string, unknown> | undefined));
  throw new ApiError("invalid", messages.join("; "));
}

function describeIssue(issue: z.core.$ZodIssue, body: Record<string, unknown> | undefined): string {
  if (issue.code === "unrecognized_keys") return `${issue.keys.join(", ")}: unknown field${issue.keys.length > 1 ? "s" : ""}`;
  const field = issue.path.map(String).join(".") || "body";
  const top = issue.path[0];
  if (body && typeof top === "string" && !(top in body) && issue.path.length === 1) return `${field}: is required`;
  return `${field}: ${issue.message}`;
}
