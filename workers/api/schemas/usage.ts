// GET /v1/billing/usage: its query (whole UTC days) and the sums it answers.
import { z } from "@hono/zod-openapi";

/** The most days one request sums: a quarter. */
export const MAX_USAGE_DAYS = 93;

const dayRule = "must be a date YYYY-MM-DD";

/** `YYYY-MM-DD` naming a day that exists (not 2026-02-30). */
const isDay = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && new Date(Date.parse(`${text}T00:00:00Z`) || 0).toISOString().startsWith(text);

/** A calendar date, as the UTC midnight it starts at. */
const day = (name: "from" | "to", description: string) =>
  z
    .string()
    .refine(isDay, dayRule)
    .transform((text) => Date.parse(`${text}T00:00:00Z`))
    .optional()
    .openapi({ param: { name, in: "query", description }, type: "string", format: "date", example: name === "from" ? "2026-11-01" : "2026-11-30" });

export const UsageQuery = z.object({
  from: day("from", "The first day summed (UTC, inclusive); default the first day of this month"),
  to: day("to", `The last day summed (UTC, inclusive); default today. At most ${MAX_USAGE_DAYS} days from \`from\``),
  group: z.enum(["day", "instance"], "must be one of day, instance").optional().openapi({
    param: { name: "group", in: "query", description: "`day`: an item per day and instance (the default); `instance`: an item per instance over the whole range" },
    example: "day",
  }),
});

export const UsageReport = z
  .object({
    items: z.array(
      z.object({
        day: z.string().nullable().openapi({ format: "date", description: "The UTC day (group=day); null with group=instance", example: "2026-11-24" }),
        instance_id: z.string().openapi({ description: "The instance charged" }),
        label: z.string().openapi({ description: "The instance's label (as it was charged, once the instance is forgotten)" }),
        gpu_model: z.string().openapi({ description: "Its GPU model, as launched" }),
        gpu_count: z.number().int().openapi({ description: "Its number of GPUs" }),
        seconds: z.number().int().openapi({ description: "Running time charged, in whole seconds" }),
        amount_micros: z.number().int().openapi({ description: "What that time cost, in micro-dollars (positive)" }),
      }),
    ).openapi({ description: "The instances' running time: oldest day first; within a day, by label (then instance id)" }),
    storage: z.array(
      z.object({
        day: z.string().nullable().openapi({ format: "date", description: "The UTC day (group=day); null with group=instance", example: "2026-11-24" }),
        volume_id: z.string().openapi({ description: "The volume charged" }),
        name: z.string().openapi({ description: "The volume's name (as it was charged, once the volume is deleted)" }),
        seconds: z.number().int().openapi({ description: "Time its stored bytes were charged for, in whole seconds (hours that cost less than a micro-dollar are left out)" }),
        amount_micros: z.number().int().openapi({ description: "What that storage cost, in micro-dollars (positive)" }),
      }),
    ).openapi({ description: "The volumes' storage, apart from the instances: an item per day and volume (group=day) or per volume (group=instance); oldest day first, then by name" }),
    total_micros: z.number().int().openapi({ description: "The sum of the items' and the storage items' amounts" }),
  })
  .openapi("UsageReport");
