// Webhook endpoints as the Worker asks the AccountDO about them: the calls, the endpoint and
// delivery shapes, and the event types. The AccountDO is the authority for an account's endpoints,
// their events and every delivery attempt (durable-objects/account/webhook-*.ts).

/** Every event type an endpoint can subscribe to; `*` in an endpoint's `events` is all of them. */
export const WEBHOOK_EVENT_TYPES = [
  "instance.status_changed",
  "instance.port_ready",
  "instance.stopped_for_funds",
  "instance.stopped_for_budget",
  "balance.low",
  "budget.threshold",
  "payment.succeeded",
  "payment.refunded",
  "volume.saved",
  "volume.save_failed",
  "volume.deletion_scheduled",
  "webhook.test",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** How many of an endpoint's deliveries are listed and kept. */
export const DELIVERIES_KEPT = 100;

/** At most this many endpoints per account. */
export const MAX_WEBHOOKS = 10;

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  created_at: string;
  disabled_reason: string | null;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

/** What a caller asks of its endpoints; `url` has already passed the Worker's URL rule (webhook-url.ts). */
export type WebhookCall =
  | { op: "list" }
  | { op: "create"; url: string; events: string[]; description: string }
  | { op: "update"; id: string; url?: string; events?: string[]; description?: string; enabled?: boolean }
  | { op: "delete"; id: string }
  | { op: "rotate"; id: string }
  | { op: "test"; id: string }
  | { op: "deliveries"; id: string }
  | { op: "retry"; id: string; delivery_id: string }
  /** The threshold below which the balance sends `balance.low`. */
  | { op: "low_balance"; micros: number };

export type WebhookAnswer =
  | { ok: true; items: WebhookEndpoint[] }
  | { ok: true; endpoint: WebhookEndpoint; secret?: string }
  | { ok: true; secret: string }
  | { ok: true; deliveries: WebhookDelivery[] }
  | { ok: true };
