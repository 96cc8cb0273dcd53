// /v1/ssh-keys: the public keys the caller's SSH connections may authenticate with — list, add,
// remove — with a key or a session. The line is parsed and fingerprinted here; the AccountDO keeps it.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { parseSshPublicKey, sshFingerprint } from "../../../core/ssh-public-key.ts";
import type { ApiEnv } from "../context.ts";
import { json, jsonBody } from "../schemas/common.ts";
import { AddSshKeyBody, SshKey, SshKeyList } from "../schemas/ssh-key.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const SshKeyIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: "The key's id from GET /v1/ssh-keys" }, example: "sshk_abcdefghijklmnop" }),
});

const listRoute = callerRoute([], {
  method: "get", path: "/ssh-keys", summary: "The account's SSH public keys",
  description: "Each key's name, type and fingerprint. Any of them opens an SSH session to the account's running instances.",
  responses: { 200: json(SshKeyList, "Keys, oldest first") },
});

const addRoute = callerRoute([400, 409], {
  method: "post", path: "/ssh-keys", summary: "Add an SSH public key",
  description: "A malformed or weak key is 400 invalid naming `public_key`. The same key twice, or a 21st key, is 409 conflict.",
  request: { body: jsonBody(AddSshKeyBody) },
  responses: { 201: json(SshKey, "The key") },
});

const removeRoute = callerRoute([404], {
  method: "delete", path: "/ssh-keys/{id}", summary: "Remove an SSH key",
  description:
    "The next SSH connection with it is refused, and the connections that authenticated with it end (their WebSocket closes with 1008 " +
    "and the reason). 500 internal when a host of the account's instances has not confirmed it in time: retry the request.",
  request: { params: SshKeyIdParam },
  responses: { 204: { description: "Removed" } },
});

export const sshKeyRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const answer = unwrap(await accountOf(c.env, c.var.accountId).sshKeysFor(c.var.credential, { op: "list" }));
    return c.json({ items: "items" in answer ? answer.items : [] }, 200);
  })
  .openapi(addRoute, async (c) => {
    const body = c.req.valid("json");
    const parsed = parseSshPublicKey(body.public_key);
    if (!parsed.ok) throw new ApiError("invalid", `public_key: ${parsed.rule}`);
    const { type, blob, comment } = parsed.key;
    const call = { op: "add" as const, type, blob, fingerprint: sshFingerprint(blob), name: (body.name ?? comment).slice(0, 100) };
    const answer = unwrap(await accountOf(c.env, c.var.accountId).sshKeysFor(c.var.credential, call));
    if (!("key" in answer)) throw new Error("add answered without the key");
    return c.json(answer.key, 201);
  })
  .openapi(removeRoute, async (c) => {
    unwrap(await accountOf(c.env, c.var.accountId).sshKeysFor(c.var.credential, { op: "remove", id: c.req.valid("param").id }));
    return c.body(null, 204);
  });
