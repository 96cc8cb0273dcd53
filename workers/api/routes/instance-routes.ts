// /v1/instances: launch, list, read, rename and idle stop, events, stop, start, destroy.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf, fleetOf } from "../../../core/env.ts";
import { sha256Hex } from "../../../core/hash.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { CALLER_REFUSED } from "../../../durable-objects/contracts/refusals.ts";
import type { ApiEnv } from "../context.ts";
import type { LaunchPlan } from "../../../core/launch-plan.ts";
import { allowedRegistries, localImagesAllowed } from "../image-registry.ts";
import { planLaunch } from "../launch-rules.ts";
import { InstanceIdParam, json, jsonBody, launchForbidden } from "../schemas/common.ts";
import { EventList, Instance, InstanceList, LaunchBody, UpdateBody } from "../schemas/instance.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const IdempotencyHeader = z.object({
  "idempotency-key": z.string().min(1).max(255, "must be at most 255 characters").optional()
    .openapi({
      param: {
        name: "idempotency-key", in: "header",
        description: "Any string chosen per launch: a retry with the same key and body within 24 hours returns the first instance; another body is 409 conflict",
      },
    }),
});

const launchRoute = callerRoute([400, 402, 409], {
  method: "post", path: "/instances", summary: "Launch an instance",
  description:
    "Places the instance on one machine with `gpu_count` free GPUs of `gpu_model` and starts creating it: 201 with " +
    "status `creating`, then `running` (or `error` with the reason in `status_message`). The balance must cover one " +
    "hour of its price (`price_hour_micros` of the GPU model x `gpu_count`, frozen at launch). An `Idempotency-Key` " +
    "makes a retried launch with the same body return the first instance for 24 hours. 402 budget_exceeded once the month's spend reaches " +
    "the account's `monthly_budget_micros` or the calling key's `monthly_limit_micros`. 403 account_frozen while the operator holds the account " +
    "(after a fraud warning on one of its payments).",
  request: { headers: IdempotencyHeader, body: jsonBody(LaunchBody) },
  responses: { 201: json(Instance, "The new instance, status creating"), ...launchForbidden },
});

const listRoute = callerRoute([], {
  method: "get", path: "/instances", summary: "The caller's instances, newest first (destroyed ones for 7 days)",
  description: "Every instance of the account, newest first; destroyed instances stay listed for 7 days.",
  responses: { 200: json(InstanceList, "Instances") },
});

const getRoute = callerRoute([404], {
  method: "get", path: "/instances/{id}", summary: "One instance", request: { params: InstanceIdParam },
  description: "The instance with its status, ports, token and price; `machine_online` says whether its host is connected.",
  responses: { 200: json(Instance, "The instance") },
});

const updateRoute = callerRoute([400, 404], {
  method: "patch", path: "/instances/{id}", summary: "Rename, or change the idle stop",
  description: "Sets the instance's `label` (at most 64 characters), its `idle_stop_minutes` (5 to 1440, or null for never), or both, in any status. " +
    "A new idle stop counts idle time from now.",
  request: { params: InstanceIdParam, body: jsonBody(UpdateBody) },
  responses: { 200: json(Instance, "The changed instance") },
});

const eventsRoute = callerRoute([404], {
  method: "get", path: "/instances/{id}/events", summary: "Event log, newest first", request: { params: InstanceIdParam },
  description: "What happened to the instance (placement, image pull, start, stop, errors, billing stops), newest first.",
  responses: { 200: json(EventList, "Events") },
});

/** A change of the instance's run that answers 204 once done. */
const action = (method: "post" | "delete", path: string, summary: string, description: string, codes: (402 | 404 | 409)[], refusals = {}) =>
  callerRoute(codes, { method, path, summary, description, request: { params: InstanceIdParam }, responses: { 204: { description: "Done" }, ...refusals } });

const stopRoute = action("post", "/instances/{id}/stop", "Stop, keeping data",
  "Stops the container and billing and releases the GPUs; the data is kept. Allowed in running, starting and creating; otherwise 409 conflict.",
  [404, 409]);
const startRoute = action("post", "/instances/{id}/start", "Start a stopped instance",
  "Starts a stopped (or failed) instance again on the same machine: status `starting`, then `running`. 409 gpus_busy when its " +
  "GPUs were taken meanwhile, 402 when the balance does not cover one hour (insufficient_funds) or the month's budget, the calling key's or " +
  "the launching key's monthly limit is reached (budget_exceeded), 403 account_frozen while the account is frozen, 409 conflict in any other status.",
  [402, 404, 409], launchForbidden);
const destroyRoute = action("delete", "/instances/{id}", "Destroy the instance and its data",
  "Removes the container and its data for good; billing stops. Allowed in any status but destroyed (409 conflict).",
  [404, 409]);

export const instanceRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(launchRoute, async (c) => {
    const body = c.req.valid("json");
    const key = c.req.valid("header")["idempotency-key"];
    const gpu = await fleetOf(c.env).getGpuModel(body.gpu_model);
    const account = accountOf(c.env, c.var.accountId);
    let plan: LaunchPlan;
    try {
      plan = planLaunch(body, gpu, allowedRegistries(c.env.IMAGE_REGISTRIES), localImagesAllowed(c.env.DEV_LOCAL_IMAGES));
    } catch (error) {
      // A bad key is refused before anything about the catalog rules is revealed; a good request
      // has its key checked once, by launch itself.
      unwrap(await account.authenticate(c.var.credential));
      throw error;
    }
    const idem = key ? { key, bodyHash: await sha256Hex(JSON.stringify(body)) } : null;
    const { instance } = unwrap(await account.launch(c.var.credential, plan, idem));
    return c.json(instance, 201);
  })
  .openapi(listRoute, async (c) => {
    const { items } = unwrap(await accountOf(c.env, c.var.accountId).listInstances(c.var.credential));
    return c.json({ items }, 200);
  })
  .openapi(getRoute, async (c) => {
    const { instance } = unwrap(await accountOf(c.env, c.var.accountId).getInstance(c.var.credential, c.req.valid("param").id));
    return c.json(instance, 200);
  })
  .openapi(updateRoute, async (c) => {
    const account = accountOf(c.env, c.var.accountId);
    const { instance } = unwrap(await account.updateInstance(c.var.credential, c.req.valid("param").id, c.req.valid("json")));
    return c.json(instance, 200);
  })
  .openapi(eventsRoute, async (c) => {
    const { items } = unwrap(await accountOf(c.env, c.var.accountId).instanceEvents(c.var.credential, c.req.valid("param").id));
    return c.json({ items }, 200);
  })
  .openapi(stopRoute, async (c) => {
    unwrap(await accountOf(c.env, c.var.accountId).changeInstance(c.var.credential, c.req.valid("param").id, "stop"));
    return c.body(null, 204);
  })
  .openapi(startRoute, async (c) => {
    unwrap(await accountOf(c.env, c.var.accountId).changeInstance(c.var.credential, c.req.valid("param").id, "start"));
    return c.body(null, 204);
  })
  .openapi(destroyRoute, async (c) => {
    unwrap(await accountOf(c.env, c.var.accountId).changeInstance(c.var.credential, c.req.valid("param").id, "destroy"));
    return c.body(null, 204);
  });
