// Webhook endpoint and delivery bodies (/v1/webhooks).
import { z } from "@hono/zod-openapi";
import { WEBHOOK_EVENT_TYPES } from "../../../durable-objects/contracts/webhooks.ts";
import { timestamp } from "./common.ts";

const url = z.string().openapi({
  description: "Where events are POSTed: https (http only to a loopback host while this service itself runs on one), no credentials, at most 2,048 characters",
  example: "https://example.com/hooks/gpu",
});
const events = z
  .array(z.enum(["*", ...WEBHOOK_EVENT_TYPES]))
  .min(1)
  .openapi({ description: "The event types sent to it; `[\"*\"]` (the default) is every type" });
const description = z.string().max(500).openapi({ description: "A note to tell endpoints apart; \"\" when left out" });

export const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ description: "The endpoint's id: `wh_` and 16 lowercase base32 characters" }),
    url,
    events,
    description,
    enabled: z.boolean().openapi({ description: "Whether events are sent to it; turned off after 3 days of failed deliveries" }),
    created_at: timestamp.openapi({ description: "When it was created" }),
    disabled_reason: z.string().nullable().openapi({ description: "Why the service disabled it; null otherwise" }),
  })
  .openapi("WebhookEndpoint");

export const CreatedWebhook = WebhookEndpoint.extend({
  secret: z.string().openapi({ description: "The signing secret (`whsec_` and base64 of 32 bytes): shown this once" }),
}).openapi("CreatedWebhook");

export const WebhookList = z.object({ items: z.array(WebhookEndpoint).openapi({ description: "Oldest first" }) }).openapi("WebhookList");

export const CreateWebhookBody = z.object({ url, events: events.optional(), description: description.optional() }).strict().openapi("CreateWebhook");

export const UpdateWebhookBody = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), enabled: z.boolean().optional().openapi({ description: "false stops deliveries (they wait); true sends them again" }) })
  .strict()
  .openapi("UpdateWebhook");

export const WebhookSecret = z.object({ secret: z.string().openapi({ description: "The new signing secret, shown this once; the previous one also signs for 24 hours" }) }).openapi("WebhookSecret");

export const WebhookDeliveryList = z
  .object({
    items: z.array(
      z.object({
        id: z.string().openapi({ description: "The delivery's id: retry it by this" }),
        event_id: z.string().openapi({ description: "The event's id: the `webhook-id` header, the same on every attempt" }),
        type: z.string().openapi({ description: "The event's type, e.g. `instance.status_changed`" }),
        status: z.enum(["pending", "delivered", "failed"]).openapi({ description: "`pending` (to be tried, or tried again), `delivered` (a 2xx) or `failed` (given up after 3 days)" }),
        attempts: z.number().int().openapi({ description: "How many times it was sent" }),
        last_status_code: z.number().int().nullable().openapi({ description: "The receiver's last HTTP status; null when it did not answer" }),
        last_error: z.string().nullable().openapi({ description: "Why the last attempt failed, with up to 200 characters of the answer" }),
        next_attempt_at: timestamp.nullable().openapi({ description: "When it is tried next, while pending" }),
        created_at: timestamp.openapi({ description: "When the event happened" }),
      }),
    ).openapi({ description: "The last 100 deliveries, newest first" }),
  })
  .openapi("WebhookDeliveryList");
