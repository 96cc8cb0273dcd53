// /v1/keys: the caller's own API keys — list, create (shown once), revoke — with a key or a session.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { CreatedKey, CreateKeyBody, KeyList } from "../schemas/keys.ts";
import { json, jsonBody } from "../schemas/common.ts";
import { validationHook } from "../validation.ts";
import { SCOPE_ROLES } from "../roles/route-roles.ts";
import { callerRoute } from "./caller-route.ts";

const KeyIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: "The key's `id` from GET /v1/keys, not the key itself" }, example: "key-abcdefghijkl" }),
});

const listRoute = callerRoute([], {
  method: "get", path: "/keys", summary: "The account's live API keys",
  description: "Each key's prefix, name, last use (to the minute), scopes, instances, expiry and monthly limit; never the key itself.",
  responses: { 200: json(KeyList, "Live keys, oldest first") },
});

const createKeyRoute = callerRoute([400, 409], {
  method: "post", path: "/keys", summary: "Create an API key; the key is shown this once",
  description:
    "`scopes` (default `[\"*\"]`: all the caller's rights), `instance_ids` (the only instances it reaches), `expires_at` (at most 365 days " +
    "ahead) and `monthly_limit_micros`. A key holds at most its maker's role: a scope none of whose routes that role may call is 403 " +
    "forbidden naming it; a key made with a key holds at most that key's scopes, instances, expiry and monthly limit (403 forbidden " +
    "naming what is beyond it). An expired key answers 401 saying when it expired. An account holds at most 50 live keys; the 51st is 409 conflict.",
  // An empty POST is the same as `{}`.
  request: { body: jsonBody(CreateKeyBody, false) },
  responses: { 201: json(CreatedKey, "The key") },
});

const revokeRoute = callerRoute([404], {
  method: "delete", path: "/keys/{id}", summary: "Revoke an API key",
  description:
    "The key gets 401 from its next request on, and the SSH connections, proxied WebSockets and followed logs it opened end " +
    "(a WebSocket closes with 1008 and the reason). Revoking the key making this request is allowed.",
  request: { params: KeyIdParam },
  responses: { 204: { description: "Revoked" } },
});

export const keyRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const { items } = unwrap(await accountOf(c.env, c.var.accountId).listKeysFor(c.var.credential));
    return c.json({ items }, 200);
  })
  .openapi(createKeyRoute, async (c) => {
    const body = c.req.valid("json") ?? {};
    const request = { ...body, name: body.name ?? "" };
    const { key } = unwrap(await accountOf(c.env, c.var.accountId).createKeyFor(c.var.credential, request, SCOPE_ROLES));
    return c.json(key, 201);
  })
  .openapi(revokeRoute, async (c) => {
    unwrap(await accountOf(c.env, c.var.accountId).revokeKeyFor(c.var.credential, c.req.valid("param").id));
    return c.body(null, 204);
  });
