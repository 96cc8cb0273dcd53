// The instance object (GET /v1/instances/{id}), the launch and update (label, idle stop) bodies, and the event log.
import { z } from "@hono/zod-openapi";
import { INSTANCE_ID_DESCRIPTION, timestamp } from "./common.ts";
import { PortObject } from "./catalog.ts";
import { IDLE_GPU_PERCENT, IDLE_STOP_MINUTES } from "../../../durable-objects/contracts/idle-stop.ts";
import { MAX_INSTANCE_VOLUMES } from "../../../protocol/volumes.ts";
import { DEFAULT_VOLUME_PATH, InstanceVolume, launchVolumes } from "./volume.ts";

export const MAX_ENV_VARS = 64;
export const MAX_ENV_BYTES = 32 * 1024;
/** Set by the platform in every container; a caller may not override them. */
export const RESERVED_ENV = ["INSTANCE_TOKEN", "PROXY_BASE_PATH"];
/** Read by the NVIDIA container runtime (NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES ...): the host's to set. */
export const RESERVED_ENV_PREFIX = "NVIDIA_";
/**
 * Read by the dynamic loader (LD_PRELOAD, LD_LIBRARY_PATH ...) of every program started with the
 * container's environment, the NVIDIA runtime's hooks included, which run as root on the host
 * (CVE-2025-23266 loaded a tenant's library there).
 */
export const LOADER_ENV_PREFIX = "LD_";

// A Docker image reference: [registry[:port]/]path[:tag][@sha256:digest], lowercase path components.
const IMAGE_REFERENCE =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

const utf8 = new TextEncoder();

const label = z.string("must be a string").max(64, "must be at most 64 characters");

const IDLE_RULE = `must be an integer from ${IDLE_STOP_MINUTES.min} to ${IDLE_STOP_MINUTES.max}, or null for never`;
const idleStopMinutes = z.number(IDLE_RULE).int(IDLE_RULE).min(IDLE_STOP_MINUTES.min, IDLE_RULE).max(IDLE_STOP_MINUTES.max, IDLE_RULE).nullable();
const IDLE_DESCRIPTION =
  `Stop the instance once every one of its GPUs has stayed under ${IDLE_GPU_PERCENT} % utilisation and it had no proxied or web app traffic ` +
  `and no SSH connection or terminal open for this many minutes (${IDLE_STOP_MINUTES.min} to ${IDLE_STOP_MINUTES.max}); its data is kept and billing ends. Time its host is away does not count. null: never`;

const env = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "names must match [A-Za-z_][A-Za-z0-9_]*"), z.string("values must be strings").refine((value) => !value.includes("\0"), "values cannot contain the NUL character (no process could be started with it)"))
  .superRefine((vars, ctx) => {
    const names = Object.keys(vars);
    if (names.length > MAX_ENV_VARS) ctx.addIssue({ code: "custom", message: `at most ${MAX_ENV_VARS} variables` });
    const bytes = names.reduce((sum, name) => sum + utf8.encode(name).byteLength + utf8.encode(vars[name] ?? "").byteLength, 0);
    if (bytes > MAX_ENV_BYTES) ctx.addIssue({ code: "custom", message: `names and values together at most ${MAX_ENV_BYTES} bytes` });
    for (const name of names.filter((n) => RESERVED_ENV.includes(n))) {
      ctx.addIssue({ code: "custom", path: [name], message: "is set by the platform and cannot be overridden" });
    }
    for (const name of names.filter((n) => n.startsWith(RESERVED_ENV_PREFIX))) {
      ctx.addIssue({ code: "custom", path: [name], message: `is reserved: the NVIDIA container runtime reads ${RESERVED_ENV_PREFIX}* variables to choose the GPUs a container gets and what it may do with them` });
    }
    for (const name of names.filter((n) => n.startsWith(LOADER_ENV_PREFIX))) {
      ctx.addIssue({ code: "custom", path: [name], message: `is refused: ${LOADER_ENV_PREFIX}* variables steer the dynamic loader of every program started with the container's environment, the NVIDIA runtime's hooks on the host included` });
    }
  });

export const LaunchBody = z
  .object({
    gpu_model: z.string("must be a GPU model id from /gpus").min(1, "must be a GPU model id from /gpus")
      .openapi({ description: "A GPU model's `model` id from GET /v1/gpus" }),
    gpu_count: z.number("must be an integer from 1 to 8").int("must be an integer from 1 to 8").min(1, "must be an integer from 1 to 8").max(8, "must be an integer from 1 to 8")
      .openapi({ description: "How many GPUs, all on one machine: at most the model's `max_per_server` now, and 1 for a template without `multi_gpu`" }),
    template: z.string("must be a template id from /catalog").min(1, "must be a template id from /catalog")
      .openapi({ description: "The template's `id` from GET /v1/catalog" }),
    model: z.string("must be a model id from /catalog").optional()
      .openapi({ description: "A model `id` from GET /v1/catalog of a kind the template serves; required when the template's `model_required`, refused when it takes none" }),
    image: z.string("must be a public container image reference").max(255, "must be at most 255 characters")
      .regex(IMAGE_REFERENCE, "must be a container image reference such as docker.io/library/nginx:1.27")
      .optional()
      .openapi({
        description: "The public container image to run: required for the `custom` template, refused for every other. Its registry must be " +
          "a public one by name (not `localhost`, an IP address or a single-label host) and one of the operator's IMAGE_REGISTRIES (by default docker.io, ghcr.io, " +
          "nvcr.io, quay.io, public.ecr.aws, registry.k8s.io); a host refuses the pull when the registry's name resolves to an address that is not public",
      }),
    disk_gb: z.number("must be an integer from 10 to 2000").int("must be an integer from 10 to 2000").min(10, "must be an integer from 10 to 2000").max(2000, "must be an integer from 10 to 2000").optional()
      .openapi({ description: "Disk size in GB; the template's `disk_gb` when left out" }),
    env: env.optional().openapi({
      description: `Environment variables for the container, name to value: at most ${MAX_ENV_VARS}, names and values together at most ` +
        `${MAX_ENV_BYTES} bytes, not ${RESERVED_ENV.map((name) => "`" + name + "`").join(" or ")} (the platform sets those) nor any \`${"NVIDIA_"}*\` (the NVIDIA runtime reads those) or \`${"LD_"}*\` (the dynamic loader reads those)`,
    }),
    label: label.optional().openapi({ description: "Your name for the instance; \"\" when left out" }),
    idle_stop_minutes: idleStopMinutes.optional().openapi({ description: `${IDLE_DESCRIPTION} (the default)`, example: 30 }),
    volumes: launchVolumes.optional().openapi({
      description: `The account's volumes to mount (at most ${MAX_INSTANCE_VOLUMES}), each once and at its own path (\`${DEFAULT_VOLUME_PATH}\` by default). ` +
        "An unknown volume is 400 invalid naming it. A volume is attached read-write to one instance at a time: a second read-write " +
        "attachment is 409 conflict naming the instance that holds it; read-only attachments are unlimited and start from the latest version",
    }),
  })
  .strict()
  .openapi("LaunchRequest");
export type LaunchBody = z.infer<typeof LaunchBody>;

export const UpdateBody = z
  .object({
    label: label.optional().openapi({ description: "The instance's new name; \"\" clears it" }),
    idle_stop_minutes: idleStopMinutes.optional().openapi({ description: `${IDLE_DESCRIPTION}. Setting it starts its idle time again`, example: 30 }),
  })
  .strict()
  .refine((body) => body.label !== undefined || body.idle_stop_minutes !== undefined, { message: "must set label, idle_stop_minutes or both" })
  .openapi("UpdateInstanceRequest");

export const InstancePort = PortObject.extend({
  ready: z.boolean().openapi({ description: "The port answers its readiness `path` (below 500) in this run of the instance; always false for `tcp` ports" }),
  ready_at: timestamp.nullable().openapi({ description: "Since when it is ready; null while it is not" }),
}).openapi("InstancePort");

export const Instance = z
  .object({
    id: z.string().openapi({ description: INSTANCE_ID_DESCRIPTION, example: "i-abcdefghijklmnop" }),
    label: z.string().openapi({ description: "Your name for the instance, at most 64 characters; \"\" when none" }),
    status: z.enum(["creating", "starting", "running", "stopped", "error", "destroyed"]).openapi({
      description: "`creating` (placed, the host is pulling and starting it), `starting` (started again, not yet confirmed), `running`, " +
        "`stopped` (data kept), `error` (see `status_message`) or `destroyed`",
    }),
    status_message: z.string().openapi({
      description: "Why the instance is in `error`, or why it was stopped for you (e.g. `stopped after 30 min idle`); \"\" otherwise",
    }),
    desired_state: z.enum(["running", "stopped", "destroyed"]).openapi({
      description: "What was asked last: `running` after launch and start, `stopped` after a stop (yours, or one for lack of funds), `destroyed` after destroy",
    }),
    gpu_model: z.string().openapi({ description: "The GPU model id, as launched" }),
    gpu_count: z.number().int().openapi({ description: "How many GPUs it has, all on one machine" }),
    template: z.string().openapi({ description: "The template id, as launched" }),
    model: z.string().openapi({ description: "The catalog model id it serves; \"\" when none" }),
    image: z.string().openapi({ description: "The container image it runs: the template's (the build for its GPU's architecture) or, for `custom`, the launch's" }),
    disk_gb: z.number().int().openapi({ description: "Disk size in GB" }),
    memory_gb: z.number().int().nullable().openapi({
      description: "Memory its container may use, in whole GiB (no swap): its share of the host by GPUs, after the host's reserve; null when its host has not said what it has",
    }),
    vcpus: z.number().nullable().openapi({ description: "CPUs its container may use (to a hundredth), shared the same way; null when unknown" }),
    ports: z.array(InstancePort).openapi({ description: "The template's ports, each with whether its server is ready" }),
    env: z.record(z.string(), z.string()).openapi({
      description: "The environment variables given at launch; `{}` when none. The container also gets `INSTANCE_TOKEN` (this `token`) and `PROXY_BASE_PATH`",
    }),
    token: z.string().openapi({ description: "The instance's own bearer token (`gpi_...`): it opens this instance's proxy and nothing else; the same for the instance's life" }),
    price_hour_micros: z.number().int().openapi({ description: "What an hour of running costs, in micro-dollars: the GPU model's price × `gpu_count`, frozen at launch" }),
    machine_id: z.number().int().openapi({ description: "The id of the machine it runs on; it stays there for its life" }),
    machine_online: z.boolean().openapi({ description: "Whether that machine's host agent is connected now; no billing while it is not" }),
    created_at: timestamp.openapi({ description: "When it was launched" }),
    started_at: timestamp.nullable().openapi({ description: "When it last reached `running`; null before the first time" }),
    gpu_util_percent: z.number().nullable().openapi({
      description: "Its GPUs' mean utilisation (0 to 100) in its host's last sample (every 10 s); null when it is not running or no sample of the last minute names it",
      example: 87.5,
    }),
    idle_stop_minutes: z.number().int().nullable().openapi({
      description: `Stopped after this many minutes idle (every GPU under ${IDLE_GPU_PERCENT} %, no traffic); null: never`, example: 30,
    }),
    ssh: z
      .object({
        host_key: z.string().openapi({ description: "Its host's SSH public key line (`ssh-ed25519 AAAA…`), for a known-hosts file", example: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r" }),
        host_key_fingerprint: z.string().openapi({ description: "That key's fingerprint as OpenSSH prints it (`SHA256:…`), for a person to compare", example: "SHA256:Gdm3GLZqJi56Xbai39/qyQsCLrQl3OopQ+Vk6ZfzWCQ" }),
        user: z.literal("root").openapi({ description: "The user an SSH session runs as" }),
      })
      .nullable()
      .openapi({ description: "How `ssh` reaches it (GET /v1/instances/{id}/ssh; `gpu ssh`): null until its host has said its key" }),
    volumes: z.array(InstanceVolume).openapi({ description: "The volumes it was launched with; `[]` when none" }),
  })
  .openapi("Instance");

export const InstanceList = z
  .object({ items: z.array(Instance).openapi({ description: "The account's instances, newest first; destroyed ones for 7 days" }) })
  .openapi("InstanceList");

export const EventList = z
  .object({
    items: z
      .array(
        z.object({
          message: z.string().openapi({ description: "What happened, in words, e.g. `Container started; instance is running`" }),
          created_at: timestamp.openapi({ description: "When it happened" }),
        }),
      )
      .openapi({ description: "The instance's events, newest first" }),
  })
  .openapi("EventList");
