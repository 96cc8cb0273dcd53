// GET /v1/audit-log: its query and its page of entries.
import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.ts";
import { LedgerQuery } from "./ledger.ts";

const filterRule = "must be 1 to 200 characters";

export const AuditQuery = LedgerQuery.extend({
  actor: z
    .string()
    .min(1, filterRule)
    .max(200, filterRule)
    .optional()
    .openapi({ param: { name: "actor", in: "query", description: "Only entries by this actor: a type (`user`, `key`, `operator`, `system`), or an actor's id or label (a user id or email, a key id or name)" }, example: "ada@example.com" }),
  action: z
    .string()
    .min(1, filterRule)
    .max(200, filterRule)
    .optional()
    .openapi({ param: { name: "action", in: "query", description: "Only entries of this action (`instance.launch`), or of its group alone (`instance` for every `instance.*`)" }, example: "instance" }),
});

export const AuditPage = z
  .object({
    items: z
      .array(
        z.object({
          id: z.number().int().openapi({ description: "The entry's number: higher than that of every earlier entry of the account" }),
          at: timestamp.openapi({ description: "When the change was made (committed with the entry)" }),
          actor: z.object({
            type: z.enum(["user", "key", "operator", "system"]).openapi({
              description: "`user`: a signed-in person; `key`: an API key; `operator`: the service's operator (credit, limits, keys made for the account); " +
                "`system`: the service itself (stops when the balance runs out, when idle or when the budget is reached; card payments applied)",
            }),
            id: z.string().nullable().openapi({ description: "The user id (`usr-…`) or the key id; null for the operator and the system" }),
            label: z.string().openapi({ description: "The person's email, the key's name (its prefix when unnamed), `operator` or `system`" }),
          }).openapi({ description: "Who made the change" }),
          action: z.string().openapi({
            description: "What was done, `<what>.<change>`: `instance.launch|start|stop|destroy|update`, `key.create|revoke`, `ssh_key.add|remove`, " +
              "`member.invite|join|role|remove`, `invitation.revoke`, `webhook.create|update|delete|rotate_secret`, " +
              "`volume.create|update|delete|snapshot|delete_snapshot`, `account.update` (the name, the budget, the balance alert), `account.limits` (the operator's), " +
              "`balance.credit|debit` (the operator's), `payment.credit|refund|dispute|dispute_won` (Stripe's, the system's)",
            example: "instance.launch",
          }),
          target: z.object({
            type: z.string().openapi({ description: "What was changed: `instance`, `key`, `ssh_key`, `user`, `invitation`, `webhook`, `volume`, `account`, `payment`" }),
            id: z.string().nullable().openapi({ description: "Its id; null for the account itself" }),
          }).openapi({ description: "What the change was made to" }),
          ip: z.string().nullable().openapi({ description: "The address the person's or the key's request came from; null for the operator and the system" }),
          detail: z.string().openapi({ description: "A short description of the change", example: "\"train\": 1 × rtx4090, pytorch" }),
        }),
      )
      .openapi({ description: "The page's entries, newest first" }),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null on the last page" }),
  })
  .openapi("AuditPage");
