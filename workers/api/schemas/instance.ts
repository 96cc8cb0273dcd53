// The instance object (GET /v1/instances/{id}), the launch and rename bodies, and the event log.
import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.ts";
import { PortObject } from "./catalog.ts";

export const MAX_ENV_VARS = 64;
export const MAX_ENV_BYTES = 32 * 1024;
/** Set by the platform in every container; a caller may not override them. */
export const RESERVED_ENV = ["INSTANCE_TOKEN", "PROXY_BASE_PATH"];

// A Docker image reference: [registry[:port]/]path[:tag][@sha256:digest], lowercase path components.
const IMAGE_REFERENCE =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

const label = z.string("must be a string").max(64, "must be at most 64 characters");

const env = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "names must match [A-Za-z_][A-Za-z0-9_]*"), z.string("values must be strings").refine((value) => !value.includes("\0"), "values cannot contain the NUL character (no process could be started with it)"))
  .superRefine((vars, ctx) => {
    const names = Object.keys(vars);
    if (names.length > MAX_ENV_VARS) ctx.addIssue({ code: "custom", message: `at most ${MAX_ENV_VARS} variables` });
    const bytes = names.reduce((sum, name) => sum + name.length + (vars[name]?.length ?? 0), 0);
    if (bytes > MAX_ENV_BYTES) ctx.addIssue({ code: "custom", message: `names and values together at most ${MAX_ENV_BYTES} bytes` });
    for (const name of names.filter((n) => RESERVED_ENV.includes(n))) {
      ctx.addIssue({ code: "custom", path: [name], message: "is set by the platform and cannot be overridden" });
    }
  });

export const LaunchBody = z
  .object({
    gpu_model: z.string("must be a GPU model id from /gpus").min(1, "must be a GPU model id from /gpus"),
    gpu_count: z.number("must be an integer from 1 to 8").int("must be an integer from 1 to 8").min(1, "must be an integer from 1 to 8").max(8, "must be an integer from 1 to 8"),
    template: z.string("must be a template id from /catalog").min(1, "must be a template id from /catalog"),
    model: z.string("must be a model id from /catalog").optional(),
    image: z.string("must be a public container image reference").max(255, "must be at most 255 characters")
      .regex(IMAGE_REFERENCE, "must be a container image reference such as docker.io/library/nginx:1.27").optional(),
    disk_gb: z.number("must be an integer from 10 to 2000").int("must be an integer from 10 to 2000").min(10, "must be an integer from 10 to 2000").max(2000, "must be an integer from 10 to 2000").optional(),
    env: env.optional(),
    label: label.optional(),
  })
  .strict()
  .openapi("LaunchRequest");
export type LaunchBody = z.infer<typeof LaunchBody>;

export const RenameBody = z.object({ label }).strict().openapi("RenameRequest");

export const InstancePort = PortObject.extend({
  ready: z.boolean().openapi({ description: "The port answers its readiness `path` (below 500) in this run of the instance; always false for `tcp` ports" }),
  ready_at: timestamp.nullable().openapi({ description: "Since when it is ready; null while it is not" }),
}).openapi("InstancePort");

export const Instance = z
  .object({
    id: z.string().openapi({ example: "i-abcdefghijklmnop" }),
    label: z.string(),
    status: z.enum(["creating", "starting", "running", "stopped", "error", "destroyed"]),
    status_message: z.string(),
    desired_state: z.enum(["running", "stopped", "destroyed"]),
    gpu_model: z.string(),
    gpu_count: z.number().int(),
    template: z.string(),
    model: z.string(),
    image: z.string(),
    disk_gb: z.number().int(),
    ports: z.array(InstancePort),
    env: z.record(z.string(), z.string()),
    token: z.string(),
    price_hour_micros: z.number().int(),
    machine_id: z.number().int(),
    machine_online: z.boolean(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
  })
  .openapi("Instance");

export const InstanceList = z.object({ items: z.array(Instance) }).openapi("InstanceList");

export const EventList = z
  .object({ items: z.array(z.object({ message: z.string(), created_at: timestamp })) })
  .openapi("EventList");
