// /v1/webhooks: the caller's webhook endpoints (create with a secret shown once, list, change,
// delete, rotate the secret, send a test) and each one's deliveries (list, retry), with a key or a session.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { WebhookCall } from "../../../durable-objects/contracts/webhooks.ts";
import type { ApiEnv } from "../context.ts";
import { json, jsonBody } from "../schemas/common.ts";
import { CreatedWebhook, CreateWebhookBody, UpdateWebhookBody, WebhookDeliveryList, WebhookEndpoint, WebhookList, WebhookSecret } from "../schemas/webhook.ts";
import { validationHook } from "../validation.ts";
import { checkWebhookUrl } from "../webhook-url.ts";
import { callerRoute } from "./caller-route.ts";

const WebhookIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: "The endpoint's id from GET /v1/webhooks" }, example: "wh_abcdefghijklmnop" }),
});
const DeliveryParams = WebhookIdParam.extend({
  delivery_id: z.string().openapi({ param: { name: "delivery_id", in: "path", description: "The delivery's id from its deliveries list" }, example: "whd_abcdefghijklmnop" }),
});

const listRoute = callerRoute([], {
  method: "get", path: "/webhooks", summary: "The account's webhook endpoints",
  description: "Each endpoint's URL, event types and state; never its secret.",
  responses: { 200: json(WebhookList, "Endpoints") },
});

const createRoute = callerRoute([400, 409], {
  method: "post", path: "/webhooks", summary: "Add a webhook endpoint; its signing secret is shown this once",
  description: "Events are POSTed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature). An account holds at most 10 endpoints; the 11th is 409 conflict.",
  request: { body: jsonBody(CreateWebhookBody) },
  responses: { 201: json(CreatedWebhook, "The endpoint and its secret") },
});

const updateRoute = callerRoute([400, 404], {
  method: "patch", path: "/webhooks/{id}", summary: "Change an endpoint: URL, event types, description, enabled",
  description: "Enabling an endpoint the service disabled clears its `disabled_reason`; its pending deliveries resume.",
  request: { params: WebhookIdParam, body: jsonBody(UpdateWebhookBody) },
  responses: { 200: json(WebhookEndpoint, "The endpoint") },
});

const deleteRoute = callerRoute([404], {
  method: "delete", path: "/webhooks/{id}", summary: "Delete an endpoint and its deliveries",
  description: "Nothing more is sent to it, not even deliveries still pending.",
  request: { params: WebhookIdParam },
  responses: { 204: { description: "Deleted" } },
});

const rotateRoute = callerRoute([404], {
  method: "post", path: "/webhooks/{id}/rotate-secret", summary: "A new signing secret, shown this once",
  description: "For 24 hours every delivery carries two signatures, the new secret's and the previous one's, so a receiver can switch over.",
  request: { params: WebhookIdParam },
  responses: { 200: json(WebhookSecret, "The new secret") },
});

const testRoute = callerRoute([404, 409], {
  method: "post", path: "/webhooks/{id}/test", summary: "Send a webhook.test event to the endpoint",
  description: "Delivered like any event; its attempt shows in the deliveries list. A disabled endpoint is 409 conflict.",
  request: { params: WebhookIdParam },
  responses: { 202: { description: "Queued" } },
});

const deliveriesRoute = callerRoute([404], {
  method: "get", path: "/webhooks/{id}/deliveries", summary: "The endpoint's last 100 deliveries",
  description: "Each delivery's event, status, attempts, the last answer (status code and an excerpt) and when it is tried next.",
  request: { params: WebhookIdParam },
  responses: { 200: json(WebhookDeliveryList, "Deliveries, newest first") },
});

const retryRoute = callerRoute([404], {
  method: "post", path: "/webhooks/{id}/deliveries/{delivery_id}/retry", summary: "Send a delivery again now",
  description: "Whatever its status; it keeps its event id, so the receiver sees the same `webhook-id`.",
  request: { params: DeliveryParams },
  responses: { 202: { description: "Queued" } },
});

type Vars = ApiEnv["Variables"];
const ask = (env: ApiEnv["Bindings"], vars: Vars, call: WebhookCall) => accountOf(env, vars.accountId).webhooksFor(vars.credential, call);

export const webhookRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const answer = unwrap(await ask(c.env, c.var, { op: "list" }));
    return c.json({ items: "items" in answer ? answer.items : [] }, 200);
  })
  .openapi(createRoute, async (c) => {
    const body = c.req.valid("json");
    const url = checkWebhookUrl(body.url, c.req.url);
    const answer = unwrap(await ask(c.env, c.var, { op: "create", url, events: body.events ?? ["*"], description: body.description ?? "" }));
    if (!("endpoint" in answer) || !answer.secret) throw new Error("create answered without the endpoint's secret");
    return c.json({ ...answer.endpoint, secret: answer.secret }, 201);
  })
  .openapi(updateRoute, async (c) => {
    const body = c.req.valid("json");
    const url = body.url === undefined ? undefined : checkWebhookUrl(body.url, c.req.url);
    const answer = unwrap(await ask(c.env, c.var, { op: "update", id: c.req.valid("param").id, ...body, url }));
    if (!("endpoint" in answer)) throw new Error("update answered without the endpoint");
    return c.json(answer.endpoint, 200);
  })
  .openapi(deleteRoute, async (c) => {
    unwrap(await ask(c.env, c.var, { op: "delete", id: c.req.valid("param").id }));
    return c.body(null, 204);
  })
  .openapi(rotateRoute, async (c) => {
    const answer = unwrap(await ask(c.env, c.var, { op: "rotate", id: c.req.valid("param").id }));
    if (!("secret" in answer) || !answer.secret) throw new Error("rotate answered without a secret");
    return c.json({ secret: answer.secret }, 200);
  })
  .openapi(testRoute, async (c) => {
    unwrap(await ask(c.env, c.var, { op: "test", id: c.req.valid("param").id }));
    return c.body(null, 202);
  })
  .openapi(deliveriesRoute, async (c) => {
    const answer = unwrap(await ask(c.env, c.var, { op: "deliveries", id: c.req.valid("param").id }));
    return c.json({ items: "deliveries" in answer ? answer.deliveries : [] }, 200);
  })
  .openapi(retryRoute, async (c) => {
    const { id, delivery_id } = c.req.valid("param");
    unwrap(await ask(c.env, c.var, { op: "retry", id, delivery_id }));
    return c.body(null, 202);
  });
