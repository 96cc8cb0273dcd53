// API keys as POST /v1/keys (and the operator's) takes them, and as they are shown: their scopes, the
// instances they are kept to, their expiry and monthly limit (contracts/api-keys.ts).
import { z } from "@hono/zod-openapi";
import { MAX_KEY_INSTANCES } from "../../../durable-objects/contracts/api-keys.ts";
import { keyScopeSchema, SCOPES } from "../../../durable-objects/contracts/scopes.ts";
import { timestamp } from "./common.ts";

const SCOPES_RULE =
  `\`*\` (all the account's rights, the default) or some of ${SCOPES.join(", ")}; ` +
  "`write` implies `use` implies `read` within a group, and a key never holds more than its maker's role";

const scopes = z
  .array(keyScopeSchema)
  .min(1)
  .superRefine((list, ctx) => {
    if (list.includes("*") && list.length > 1) ctx.addIssue({ code: "custom", message: "`*` stands alone: it already holds every scope" });
    if (new Set(list).size !== list.length) ctx.addIssue({ code: "custom", message: "lists a scope twice" });
  })
  .openapi({ description: `What the key may do: ${SCOPES_RULE}`, example: ["instances:read"] });

const instanceIds = z
  .array(z.string().regex(/^i-[a-z2-7]{16}$/, "each must be an instance id (`i-` and 16 lowercase base32 characters)"))
  .min(1)
  .max(MAX_KEY_INSTANCES)
  .refine((list) => new Set(list).size === list.length, "lists an instance twice")
  .nullable()
  .openapi({
    description: `The only instances the key reaches (at most ${MAX_KEY_INSTANCES}); any other answers 404 as if absent, lists show only these, and it may not launch. null: every instance`,
    example: ["i-abcdefghijklmnop"],
  });

const expiresAt = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 time such as 2026-12-31T00:00:00Z" })
  .nullable()
  .openapi({ description: "When the key stops working (401 after it): in the future, at most 365 days ahead. null: never", example: "2026-12-31T00:00:00.000Z" });

const monthlyLimit = z
  .number()
  .int()
  .min(0)
  .nullable()
  .openapi({ description: "The most the instances this key launches may spend in a UTC calendar month, in micro-dollars. null: no limit" });

export const CreateKeyBody = z
  .object({
    name: z.string().max(100).optional().openapi({ description: "A name to tell the key apart by; \"\" when left out" }),
    scopes: scopes.optional(),
    instance_ids: instanceIds.optional(),
    expires_at: expiresAt.optional(),
    monthly_limit_micros: monthlyLimit.optional(),
  })
  .strict()
  .openapi("CreateKey", {
    description: "Each left out takes its default (all rights, every instance, never, no limit); for a key made with a key, that key's: it can only narrow them.",
  });

const keyId = z.string().openapi({ description: "The key's id: `key-` and 12 lowercase base32 characters; revoke the key by it" });
const keyName = z.string().openapi({ description: "The name given at creation; \"\" when none" });
const shownPrefix = z.string().openapi({ description: "The key's first 29 characters (`gpk_`, the account id, `_` and 4 of the secret): enough to recognise it, not to use it" });
const keyCreatedAt = timestamp.openapi({ description: "When the key was created" });

const keyRights = {
  scopes: z.array(keyScopeSchema).openapi({ description: `What the key may do: ${SCOPES_RULE}` }),
  instance_ids: z.array(z.string()).nullable().openapi({ description: "The only instances the key reaches; null: every instance" }),
  expires_at: timestamp.nullable().openapi({ description: "When the key stops working; null: never" }),
  monthly_limit_micros: monthlyLimit,
};

export const CreatedKey = z
  .object({
    id: keyId,
    key: z.string().openapi({ description: "The key itself: shown this once" }),
    name: keyName,
    prefix: shownPrefix,
    created_at: keyCreatedAt,
    ...keyRights,
  })
  .openapi("CreatedKey");

export const KeyList = z
  .object({
    items: z
      .array(
        z.object({
          id: keyId,
          name: keyName,
          prefix: shownPrefix,
          created_at: keyCreatedAt,
          last_used_at: timestamp.nullable().openapi({ description: "When the key was last used, to the minute; null when never" }),
          ...keyRights,
        }),
      )
      .openapi({ description: "The account's live (not revoked) keys, oldest first; an expired key stays listed until revoked" }),
  })
  .openapi("KeyList");
