// The one validation hook of every route: a schema violation becomes 400 `invalid` naming the field
// and the rule. (Bodies that are not a JSON object never get here: middleware/body-rule.ts refuses them.)
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../core/errors.ts";

type HookResult = { success: true } | { success: false; error: z.ZodError; target: string };

export async function validationHook(result: HookResult, c: Context): Promise<void> {
  if (result.success) return;
  const body: unknown = result.target === "json" ? await c.req.json().catch(() => null) : null;
  const input = typeof body === "object" && body !== null ? body : null;
  throw new ApiError("invalid", result.error.issues.map((issue) => describeIssue(issue, input)).join("; "));
}

/** `body`: the JSON body, to tell a missing field from a wrong one (null for other targets). */
function describeIssue(issue: z.core.$ZodIssue, body: object | null): string {
  if (issue.code === "unrecognized_keys") return `${issue.keys.join(", ")}: unknown field${issue.keys.length > 1 ? "s" : ""}`;
  const field = issue.path.map(String).join(".") || "body";
  const top = issue.path[0];
  if (body && typeof top === "string" && issue.path.length === 1 && !Object.hasOwn(body, top)) return `${field}: is required`;
  return `${field}: ${issue.message}`;
}
