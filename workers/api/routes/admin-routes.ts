// The operator API under /admin/v1 (README: "Operating it"), behind ADMIN_TOKEN.
import { createRoute, OpenAPIHono, z, type RouteConfig } from "@hono/zod-openapi";
import { accountOf, fleetOf } from "../../../core/env.ts";
import { newAccountId } from "../../../core/ids.ts";
import { unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { defaultMaxGpus } from "../../../durable-objects/contracts/accounts.ts";
import { AccountLimitsBody, AdminAccount, Balance, CreateAccountBody, CreditBody } from "../schemas/account.ts";
import { CreatedKey, CreateKeyBody, KeyList } from "../schemas/keys.ts";
import { ErrorBody, json, jsonBody } from "../schemas/common.ts";
import { GpuModelBody, gpuModelId, GpuModelEntry } from "../schemas/gpu.ts";
import { CreatedMachine, CreateMachineBody, MachineIdParam, MachineList, ReplacedAgentToken } from "../schemas/machine.ts";
import { validationHook } from "../validation.ts";

const ADMIN_ERRORS = {
  400: json(ErrorBody, "Malformed request (bad_request) or invalid parameter (invalid)"),
  401: json(ErrorBody, "Operator token missing or wrong (unauthorized)"),
  404: json(ErrorBody, "No such account, key or machine (not_found)"),
  409: json(ErrorBody, "The account or machine cannot take it (conflict)"),
  429: json(ErrorBody, "More than ADMIN_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry"),
};

/** An operator route, behind the admin token: besides `ownErrors` it can give 401 and 429 (the operator API's own per-IP budget). */
function adminRoute<P extends string, R extends Omit<RouteConfig, "path" | "security"> & { path: P }>(ownErrors: (400 | 404 | 409)[], route: R) {
  const errors = Object.fromEntries([401 as const, 429 as const, ...ownErrors].map((status) => [status, ADMIN_ERRORS[status]]));
  return createRoute({ security: [{ adminAuth: [] }], ...route, responses: { ...route.responses, ...errors } });
}

const AccountParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: "The account's id: `acc-` and 16 lowercase base32 characters" } }),
});
const KeyParam = AccountParam.extend({
  key_id: z.string().openapi({ param: { name: "key_id", in: "path", description: "The key's `id` (`key-...`), not the key itself" } }),
});

const putGpuModel = adminRoute([400], {
  method: "put", path: "/gpu-models/{model}", summary: "Create or update a GPU model and its price",
  description: "Sets a GPU model's display name, VRAM, tier, architecture and hourly price per GPU; launches from now on pay the new price.",
  request: {
    params: z.object({
      model: gpuModelId.openapi({
        param: { name: "model", in: "path", description: "The GPU model's id, as host agents report it (e.g. `rtx4090`, `h100-80gb`): launches name it as `gpu_model`" },
      }),
    }),
    body: jsonBody(GpuModelBody),
  },
  responses: { 200: json(GpuModelEntry, "The entry") },
});
const createMachine = adminRoute([400], {
  method: "post", path: "/machines", summary: "Register a machine; its agent token is shown once",
  description: "Registers a GPU machine. Its host agent connects with the returned `agent_token`, which is never shown again.",
  request: { body: jsonBody(CreateMachineBody, false) }, responses: { 201: json(CreatedMachine, "The machine") },
});
const listMachines = adminRoute([], {
  method: "get", path: "/machines", summary: "Machines and their GPUs",
  description: "Every registered machine: whether its agent is connected, its GPUs, how many are free, and when it was last seen.",
  responses: { 200: json(MachineList, "Machines") },
});
const replaceAgentToken = adminRoute([400, 404], {
  method: "post", path: "/machines/{id}/token", summary: "Replace a machine's agent token",
  description: "A new agent token for the machine, shown once: the old one is refused from now on and the agent connected with it is cut off. Install the new one on the host (docs/deploy.md).",
  request: { params: MachineIdParam }, responses: { 200: json(ReplacedAgentToken, "The new token") },
});
const retireMachine = adminRoute([400, 404, 409], {
  method: "delete", path: "/machines/{id}", summary: "Retire a machine",
  description: "Removes the machine from the fleet and makes its agent token open nothing, only while no instance lives on it (409 conflict otherwise: destroy them first).",
  request: { params: MachineIdParam }, responses: { 204: { description: "Retired" } },
});
const createAccount = adminRoute([400], {
  method: "post", path: "/accounts", summary: "Create an account",
  description: "Creates an account with an optional starting balance (written to its ledger as a credit).",
  request: { body: jsonBody(CreateAccountBody, false) }, responses: { 201: json(AdminAccount, "The account") },
});
const getAccount = adminRoute([404], {
  method: "get", path: "/accounts/{id}", summary: "An account, its limit and whether it is frozen",
  description: "The account with its balance, its GPU limit, and whether (and why) it is frozen.",
  request: { params: AccountParam }, responses: { 200: json(AdminAccount, "The account") },
});
const setLimits = adminRoute([400, 404], {
  method: "patch", path: "/accounts/{id}", summary: "Set an account's limits, or clear its freeze",
  description: "`max_gpus`: how many GPUs the account may hold at once in any live status (a launch or start beyond it is 409 conflict); null goes back to ACCOUNT_MAX_GPUS. " +
    "`frozen`: false clears a freeze (after Stripe's early fraud warning the account's launches and starts are 403 account_frozen until then), true sets one. " +
    "Either or both; what is left out stays.",
  request: { params: AccountParam, body: jsonBody(AccountLimitsBody) }, responses: { 200: json(AdminAccount, "The account with its limit and freeze") },
});
const credit = adminRoute([400, 404], {
  method: "post", path: "/accounts/{id}/credits", summary: "Credit (or debit) an account",
  description: "Adds `amount_micros` (negative to debit) to the balance, with a ledger row carrying the note.",
  request: { params: AccountParam, body: jsonBody(CreditBody) }, responses: { 200: json(Balance, "The new balance") },
});
const createKey = adminRoute([400, 404, 409], {
  method: "post", path: "/accounts/{id}/keys", summary: "Create an API key; the key is shown once",
  description:
    "Creates an API key for the account, with the scopes, instances, expiry and monthly limit asked (as POST /v1/keys; made by no member, " +
    "it acts as an owner). Only its hash is stored: the key is in this answer and nowhere else.",
  request: { params: AccountParam, body: jsonBody(CreateKeyBody, false) },
  responses: { 201: json(CreatedKey, "The key") },
});
const listKeys = adminRoute([404], {
  method: "get", path: "/accounts/{id}/keys", summary: "Live keys of an account (never the key itself)",
  description: "The account's live keys with their prefix, name, creation and last use; never the key itself.",
  request: { params: AccountParam }, responses: { 200: json(KeyList, "Keys") },
});
const revokeKey = adminRoute([404], {
  method: "delete", path: "/accounts/{id}/keys/{key_id}", summary: "Revoke a key, effective on its next use",
  description: "Revokes the key: its next request, and every one after, is 401.",
  request: { params: KeyParam }, responses: { 204: { description: "Revoked" } },
});

export const adminRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(putGpuModel, async (c) => {
    const entry = await fleetOf(c.env).putGpuModel({ model: c.req.valid("param").model, ...c.req.valid("json") });
    return c.json(entry, 200);
  })
  .openapi(createMachine, async (c) => {
    const { name } = optional(c.req.valid("json"));
    const created = unwrap(await fleetOf(c.env).createMachine(name ?? "machine"));
    return c.json({ id: created.id, agent_token: created.agent_token }, 201);
  })
  .openapi(listMachines, async (c) => c.json({ items: await fleetOf(c.env).listMachines() }, 200))
  .openapi(replaceAgentToken, async (c) => {
    const { token } = unwrap(await fleetOf(c.env).replaceAgentToken(c.req.valid("param").id));
    return c.json({ token }, 200);
  })
  .openapi(retireMachine, async (c) => {
    unwrap(await fleetOf(c.env).retireMachine(c.req.valid("param").id));
    return c.body(null, 204);
  })
  .openapi(createAccount, async (c) => {
    const { balance_micros } = optional(c.req.valid("json"));
    const id = newAccountId();
    const account = await accountOf(c.env, id).initialize(id, balance_micros ?? 0);
    return c.json({ ...account, max_gpus: defaultMaxGpus(c.env), frozen: false, frozen_reason: null }, 201);
  })
  .openapi(getAccount, async (c) => c.json(unwrap(await accountOf(c.env, c.req.valid("param").id).operatorView()).account, 200))
  .openapi(setLimits, async (c) => {
    const { max_gpus, frozen } = c.req.valid("json");
    return c.json(unwrap(await accountOf(c.env, c.req.valid("param").id).setLimits({ max_gpus, frozen })).account, 200);
  })
  .openapi(credit, async (c) => {
    const { amount_micros, note } = c.req.valid("json");
    const result = unwrap(await accountOf(c.env, c.req.valid("param").id).credit(amount_micros, note ?? "operator credit"));
    return c.json({ balance_micros: result.balance_micros }, 200);
  })
  .openapi(createKey, async (c) => {
    const body = optional(c.req.valid("json"));
    const { key } = unwrap(await accountOf(c.env, c.req.valid("param").id).createApiKey({ ...body, name: body.name ?? "" }));
    return c.json(key, 201);
  })
  .openapi(listKeys, async (c) => {
    const { items } = unwrap(await accountOf(c.env, c.req.valid("param").id).listApiKeys());
    return c.json({ items }, 200);
  })
  .openapi(revokeKey, async (c) => {
    const { id, key_id } = c.req.valid("param");
    unwrap(await accountOf(c.env, id).revokeApiKey(key_id));
    return c.body(null, 204);
  });

/** Optional bodies are validated only when sent as JSON; no body reads as `{}`. */
function optional<T extends object>(value: T | undefined): Partial<T> {
  return value ?? {};
}
