// POST /v1/instances/{id}/ports/{port}/open: the address of an instance web app on its own origin,
// with a one-time ticket (key or session). The AccountDO admits the caller and the instance; the
// instance's MachineDO issues the ticket, and later turns it into the app's session (workers/apps).
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { iso } from "../../../core/clock.ts";
import { accountOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import { APP_SESSION_TTL_MS, APP_TICKET_TTL_MS } from "../../../durable-objects/contracts/credential-lifetimes.ts";
import { APP_TICKET_PARAM, appOrigin } from "../../http/app-origin.ts";
import type { ApiEnv } from "../context.ts";
import { INSTANCE_ID_DESCRIPTION, json } from "../schemas/common.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const portRule = "must be an integer from 1 to 65535";

const OpenAppParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: INSTANCE_ID_DESCRIPTION }, example: "i-abcdefghijklmnop" }),
  port: z
    .string()
    .regex(/^[1-9][0-9]{0,4}$/, portRule)
    .transform(Number)
    .pipe(z.number().max(65535, portRule))
    .openapi({ param: { name: "port", in: "path", description: "One of the instance's HTTP ports" }, type: "integer", minimum: 1, maximum: 65535, example: 8888 }),
});

const OpenedApp = z
  .object({
    url: z.string().openapi({
      format: "uri",
      description: `The app's address on its own origin, with a one-time ticket valid ${APP_TICKET_TTL_MS / 1000} s: open it in the browser`,
      example: `https://i-abcdefghijklmnop-8888.apps.example.net/?${APP_TICKET_PARAM}=gpt_i-abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567`,
    }),
    expires_at: z.string().openapi({ format: "date-time", description: "When the ticket expires unused", example: "2026-11-21T12:01:00.000Z" }),
  })
  .openapi("OpenedApp");

const openRoute = callerRoute([400, 404, 409], {
  method: "post", path: "/instances/{id}/ports/{port}/open", summary: "Open an instance web app in the browser",
  description:
    "The address of the web app (Jupyter, ComfyUI, Gradio ...) on HTTP port `port` of a running instance, on an origin of its " +
    "own: `{instance id}-{port}.{APPS_DOMAIN}`, with a one-time ticket valid " + `${APP_TICKET_TTL_MS / 1000} s` + " for that instance " +
    "and port only. The first request with the ticket is redirected to the same address without it and gets the app's session " +
    `cookie \`__Host-gpr_app\` (\`gpr_app\` on a local http stack; at most ${APP_SESSION_TTL_MS / 3_600_000} h, for this run of the instance); every request on that origin then ` +
    "goes to `http://localhost:{port}{path}` inside the instance exactly as sent. The app's session ends when the instance stops " +
    "or is destroyed, and when the key or the session that opened it is revoked or signs out. 404 not_found when the instance " +
    "has no such HTTP port, 409 not_running when it is not running.",
  request: { params: OpenAppParams },
  responses: { 200: json(OpenedApp, "The app's address, with its ticket") },
});

export const appRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(openRoute, async (c) => {
  const { id, port } = c.req.valid("param");
  const { ticket, expires_ms } = unwrap(await accountOf(c.env, c.var.accountId).openApp(c.var.credential, id, port));
  const url = `${appOrigin(c.env.APPS_DOMAIN, { instanceId: id, port })}/?${APP_TICKET_PARAM}=${ticket}`;
  return c.json({ url, expires_at: iso(expires_ms) }, 200);
});
