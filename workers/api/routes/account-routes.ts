// GET /v1/me, GET /v1/gpus, GET /v1/catalog.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf, fleetOf } from "../../../core/env.ts";
import { models } from "../catalog/models.ts";
import { templates } from "../catalog/templates.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { meView } from "../me-view.ts";
import { AccountSettingsBody, Me } from "../schemas/account.ts";
import { Catalog } from "../schemas/catalog.ts";
import { json, jsonBody } from "../schemas/common.ts";
import { GpuList } from "../schemas/gpu.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

/** A GET that answers `answer` as JSON (described as `answered`), with only the errors every caller route can give. */
const read = <P extends string, T extends z.ZodType>(path: P, answer: T, answered: string, doc: { summary: string; description: string }) =>
  callerRoute([], { method: "get", path, ...doc, responses: { 200: json(answer, answered) } });

const meRoute = read("/me", Me, "The account", {
  summary: "Account and balance",
  description:
    "The account the caller acts on (`id`, `name`, `referral_code`, `created_at`, the caller's `role`) and its balance in micro-dollars, " +
    "settled up to now; for a signed-in person, who they are (`user`) and every account they belong to (`accounts`).",
});

const gpusRoute = read("/gpus", GpuList, "GPU models", {
  summary: "GPU models, prices, availability",
  description:
    "Every GPU model with its hourly price per GPU, `free_gpus` (free GPUs of that model on online machines now) and " +
    "`max_per_server` (the largest `gpu_count` one launch can get now: the most free GPUs on a single machine).",
});

const catalogRoute = read("/catalog", Catalog, "The catalog", {
  summary: "GPUs, templates, models with cache status",
  description:
    "What can be launched: the GPU models (as GET /gpus), the templates (software stacks with their image, ports and " +
    "requirements) and the models they serve; a model is `cached` when an online machine has it in its cache.",
});

const settingsRoute = callerRoute([400], {
  method: "patch", path: "/account", summary: "Change the account's settings: its name, the balance.low threshold, the monthly budget",
  description:
    "`name`: what its members call it (the account switcher shows it). `low_balance_micros`: a `balance.low` webhook is sent each time " +
    "the balance falls below it (0: never). `monthly_budget_micros` (null: none) and `budget_action`: at 50, 80 and 100 % of the budget " +
    "in a UTC month a `budget.threshold` webhook is sent, once each; at 100 % launches and starts answer 402 `budget_exceeded`, and " +
    "with `stop` every running instance is stopped before this answers (volumes kept). Each left out stays as it is. Answers as GET /me.",
  request: { body: jsonBody(AccountSettingsBody) },
  responses: { 200: json(Me, "The account") },
});

export const accountRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(meRoute, async (c) => {
    return c.json(await meView(c.env, c.var.credential, c.var.accountId), 200);
  })
  .openapi(settingsRoute, async (c) => {
    const stub = accountOf(c.env, c.var.accountId);
    const { name, low_balance_micros, monthly_budget_micros, budget_action } = c.req.valid("json");
    if (name !== undefined) unwrap(await stub.renameAccount(c.var.credential, name));
    if (low_balance_micros !== undefined) unwrap(await stub.webhooksFor(c.var.credential, { op: "low_balance", micros: low_balance_micros }));
    if (monthly_budget_micros !== undefined || budget_action !== undefined) unwrap(await stub.changeBudget(c.var.credential, { monthly_budget_micros, budget_action }));
    return c.json(await meView(c.env, c.var.credential, c.var.accountId), 200);
  })
  .openapi(gpusRoute, async (c) => {
    const [, gpus] = await Promise.all([authenticate(c.env, c.var), fleetOf(c.env).listGpus()]);
    return c.json({ gpus }, 200);
  })
  .openapi(catalogRoute, async (c) => {
    const fleet = fleetOf(c.env);
    const [, gpus, cached] = await Promise.all([authenticate(c.env, c.var), fleet.listGpus(), fleet.cachedModels()]);
    const cachedSet = new Set(cached.map((hf) => hf.toLowerCase()));
    return c.json(
      { gpus, templates: [...templates], models: models.map((m) => ({ ...m, cached: cachedSet.has(m.hf.toLowerCase()) })) },
      200,
    );
  });

async function authenticate(env: ApiEnv["Bindings"], vars: ApiEnv["Variables"]): Promise<void> {
  unwrap(await accountOf(env, vars.accountId).authenticate(vars.credential));
}

