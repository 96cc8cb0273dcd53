// What the Worker asks the MachineDO for a container's logs. It rides the URL of a MachineDO `fetch`
// (not RPC): the answer is a streamed Response, plain text or server-sent events, that the Worker
// passes through as it comes. Encoded and checked by the two functions below, nowhere else.
import { z } from "zod";
import { MAX_LOG_TAIL } from "../../protocol/index.ts";
import { openerSchema, type Opener } from "./opener.ts";

export interface LogsRequest {
  instanceId: string;
  /** The last lines, 1 to MAX_LOG_TAIL. */
  tail: number;
  /** Then new lines until the container stops. */
  follow: boolean;
  /** `events`: one server-sent event per line, with its time and stream; `text`: the bare lines. */
  format: "text" | "events";
  /** The Worker's id of the request, for the stream's log lines ("" when it has none). */
  requestId: string;
  /** The caller's key or session, as its account admitted it (AccountDO.openProxy): revoking it ends a followed stream. */
  opener: Opener | null;
}

const logsRequest: z.ZodType<LogsRequest> = z.object({
  instanceId: z.string().regex(/^i-[a-z2-7]{16}$/),
  tail: z.coerce.number().int().min(1).max(MAX_LOG_TAIL),
  follow: z.enum(["true", "false"]).transform((value) => value === "true"),
  format: z.enum(["text", "events"]),
  requestId: z.string().regex(/^(req_[a-z2-7]{20})?$/).default(""),
  opener: z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "is not JSON" });
      return z.NEVER;
    }
  }).pipe(openerSchema.nullable()),
});

export const LOGS_PATH = "/logs";

export function logsRequestUrl(request: LogsRequest): string {
  const query = new URLSearchParams({
    instanceId: request.instanceId, tail: String(request.tail), follow: String(request.follow), format: request.format,
    requestId: request.requestId, opener: JSON.stringify(request.opener),
  });
  return `https://machine${LOGS_PATH}?${query}`;
}

export function decodeLogsRequest(url: URL): { ok: true; request: LogsRequest } | { ok: false; reason: string } {
  const parsed = logsRequest.safeParse(Object.fromEntries(url.searchParams));
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `logs request rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}
