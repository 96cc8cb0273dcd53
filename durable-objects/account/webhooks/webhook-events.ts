// Webhook events computed in code, written in the transaction of the change they report (the
// triggers of webhook-schema.ts write the others, and fan every event out to its endpoints).
import { iso } from "../../../core/clock.ts";
import { randomBase32 } from "../../../core/ids.ts";
import type { WebhookEventType } from "../../contracts/webhooks.ts";
import type { Sql } from "../../sql.ts";

export const newEventId = () => "msg_" + randomBase32(24);

/** Records an event for every subscribed endpoint; call it inside the change's transaction. */
export function recordWebhookEvent(sql: Sql, type: Exclude<WebhookEventType, "webhook.test">, data: Record<string, unknown>, atMs: number): void {
  sql`INSERT INTO webhook_events (id, type, data, created_at) VALUES (${newEventId()}, ${type}, ${JSON.stringify(data)}, ${iso(atMs)})`;
}
