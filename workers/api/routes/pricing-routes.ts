// GET /pricing.json: what is on offer, for anyone (no credential): every GPU model with its price and
// how many are free now, the templates, and the price of a volume's storage. The public /pricing page and the sign-in pages read it.
// It is outside /v1 (whose every route keeps needing a key), under the API's per-IP budget, and a
// browser or the edge may keep it 30 s.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { fleetOf } from "../../../core/env.ts";
import { volumePriceGbMonthMicros } from "../../../core/volume-prices.ts";
import { templates } from "../catalog/templates.ts";
import type { ApiEnv } from "../context.ts";
import { errors, json } from "../schemas/common.ts";
import { validationHook } from "../validation.ts";

export const PRICING_PATH = "/pricing.json";
const MAX_AGE_S = 30;

const Pricing = z
  .object({
    gpus: z.array(z.object({
      model: z.string().openapi({ description: "The GPU model's id" }),
      display_name: z.string().openapi({ description: "Its name, as people know it" }),
      vram_gb: z.number().int().openapi({ description: "Its memory in GB" }),
      price_hour_micros: z.number().int().openapi({ description: "Price of one GPU for one hour, in micro-dollars (1,000,000 = $1)" }),
      free_gpus: z.number().int().openapi({ description: "How many are free now, on all online machines together" }),
    })).openapi({ description: "Every GPU model on offer" }),
    templates: z.array(z.object({
      id: z.string().openapi({ description: "The template's id, a launch's `template`" }),
      name: z.string().openapi({ description: "Its name" }),
      description: z.string().openapi({ description: "What it runs" }),
    })).openapi({ description: "What an instance can run" }),
    volume_price_gb_month_micros: z.number().int().openapi({
      description: "Price of a GB (10^9 bytes) of a volume's stored bytes for a month (730 hours), in micro-dollars; charged hourly",
    }),
  })
  .openapi("Pricing");

const pricingRoute = createRoute({
  method: "get", path: PRICING_PATH, summary: "What is on offer, for anyone",
  description: `Every GPU model with its price per GPU-hour and how many are free now, the templates, and volumes' storage price per GB-month. No credential; cached for at most ${MAX_AGE_S} s; the API's per-IP budget.`,
  responses: { 200: json(Pricing, "GPUs and templates"), ...errors(429) },
});

export const pricingRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(pricingRoute, async (c) => {
  const gpus = (await fleetOf(c.env).listGpus()).map(({ model, display_name, vram_gb, price_hour_micros, free_gpus }) => ({ model, display_name, vram_gb, price_hour_micros, free_gpus }));
  c.header("cache-control", `public, max-age=${MAX_AGE_S}`);
  return c.json({
    gpus,
    templates: templates.map(({ id, name, description }) => ({ id, name, description })),
    volume_price_gb_month_micros: volumePriceGbMonthMicros(c.env),
  }, 200);
});
