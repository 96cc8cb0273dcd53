// GET /v1/instances/{id}/logs: its query and the shape of one event of a followed log.
import { z } from "@hono/zod-openapi";
import { MAX_LOG_TAIL } from "../../../protocol/messages.ts";

export const DEFAULT_LOG_TAIL = 200;
const tailRule = `must be an integer from 1 to ${MAX_LOG_TAIL}`;

export const LogsQuery = z.object({
  tail: z
    .string()
    .regex(/^\d{1,5}$/, tailRule)
    .transform(Number)
    .pipe(z.number().min(1, tailRule).max(MAX_LOG_TAIL, tailRule))
    .optional()
    .openapi({ param: { name: "tail", in: "query", description: `How many of the last lines (default ${DEFAULT_LOG_TAIL})` }, type: "integer", minimum: 1, maximum: MAX_LOG_TAIL, example: DEFAULT_LOG_TAIL }),
  follow: z
    .enum(["true", "false"], "must be true or false")
    .optional()
    .openapi({ param: { name: "follow", in: "query", description: "Keep the response open and send new lines as server-sent events until the container stops" } }),
});

export const LogEvent = z
  .object({
    t: z.string().openapi({ format: "date-time", description: "When the container wrote the line" }),
    stream: z.enum(["stdout", "stderr"]).openapi({ description: "Which of the container's outputs the line was written to" }),
    line: z.string().openapi({ description: "The line, without its line break" }),
  })
  .openapi({ description: "The JSON of one `data:` event of a log sent as server-sent events" });
