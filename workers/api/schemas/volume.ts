// Volume bodies (/v1/volumes, and the `volumes` of a launch and of the instance object).
import { z } from "@hono/zod-openapi";
import { MAX_VOLUME_SNAPSHOTS, VOLUME_NAME, VOLUME_SIZE_GB } from "../../../durable-objects/contracts/volumes.ts";
import { MAX_INSTANCE_VOLUMES } from "../../../protocol/volumes.ts";
import { timestamp } from "./common.ts";

const NAME_RULE = "must be 1 to 63 of a-z, 0-9 and -, starting with a letter";
const SIZE_RULE = `must be an integer from ${VOLUME_SIZE_GB.min} to ${VOLUME_SIZE_GB.max}`;

export const VOLUME_ID_DESCRIPTION = "The volume's id (`vol_` and 16 lowercase base32 characters) or its name";

const volumeName = z.string(NAME_RULE).regex(VOLUME_NAME, NAME_RULE);
const sizeGb = z.number(SIZE_RULE).int(SIZE_RULE).min(VOLUME_SIZE_GB.min, SIZE_RULE).max(VOLUME_SIZE_GB.max, SIZE_RULE);

/** Where a volume is mounted in an instance. */
export const DEFAULT_VOLUME_PATH = "/workspace";
const SYSTEM_PATHS = ["/proc", "/sys", "/dev"];
const PATH_RULE = "must be an absolute path of parts of A-Z, a-z, 0-9, ., _, @, + and - (no . or .. part, no trailing /), at most 255 characters";

const mountPath = z
  .string(PATH_RULE)
  .max(255, PATH_RULE)
  .refine((path) => /^(\/[A-Za-z0-9._@+-]+)+$/.test(path) && path.split("/").every((part) => part !== "." && part !== ".."), PATH_RULE)
  .refine((path) => !SYSTEM_PATHS.some((system) => path === system || path.startsWith(system + "/")), `cannot be ${SYSTEM_PATHS.join(", ")} or under them`);

const LaunchVolume = z
  .object({
    volume_id: z.string("must be a volume's id or name").min(1, "must be a volume's id or name").max(80, "must be a volume's id or name")
      .openapi({ description: VOLUME_ID_DESCRIPTION }),
    path: mountPath.optional().openapi({ description: `Where the instance sees it; \`${DEFAULT_VOLUME_PATH}\` when left out. Not \`/\`, and not under ${SYSTEM_PATHS.join(", ")}` }),
    read_only: z.boolean("must be true or false").optional().openapi({ description: "Mount it read-only (false when left out): it then starts from the volume's latest version and is never saved" }),
  })
  .strict();

/** A launch's `volumes`: at most MAX_INSTANCE_VOLUMES, each volume once, at distinct paths. */
export const launchVolumes = z
  .array(LaunchVolume)
  .max(MAX_INSTANCE_VOLUMES, `at most ${MAX_INSTANCE_VOLUMES} volumes`)
  .superRefine((volumes, ctx) => {
    volumes.forEach((volume, i) => {
      const path = volume.path ?? DEFAULT_VOLUME_PATH;
      const first = volumes.findIndex((other) => (other.path ?? DEFAULT_VOLUME_PATH) === path);
      if (first < i) ctx.addIssue({ code: "custom", path: [i, "path"], message: `${path} is also volumes.${first}'s path; each volume needs its own` });
      if (volumes.findIndex((other) => other.volume_id === volume.volume_id) < i) ctx.addIssue({ code: "custom", message: `volume ${volume.volume_id} is named twice` });
    });
  });

export const InstanceVolume = z
  .object({
    volume_id: z.string().openapi({ description: "The volume's id" }),
    path: z.string().openapi({ description: "Where the instance sees it", example: DEFAULT_VOLUME_PATH }),
    read_only: z.boolean().openapi({ description: "Whether it is mounted read-only" }),
  })
  .openapi("InstanceVolume");

export const Volume = z
  .object({
    id: z.string().openapi({ description: "`vol_` and 16 lowercase base32 characters", example: "vol_abcdefghijklmnop" }),
    name: z.string().openapi({ description: "Unique in the account; usable wherever the id is", example: "datasets" }),
    size_gb: z.number().int().openapi({ description: "The most content it holds, in GB (10^9 bytes): a save of more is refused and the last version stays" }),
    used_bytes: z.number().int().openapi({ description: "The content of its latest version" }),
    stored_bytes: z.number().int().openapi({ description: "Unique bytes kept for it: its latest version's and its snapshots', each chunk once; what storage is charged by" }),
    version: z.number().int().openapi({ description: "0 while empty; +1 for each save that changed something" }),
    attachments: z
      .array(z.object({
        instance_id: z.string().openapi({ description: "The instance it is mounted in" }),
        path: z.string().openapi({ description: "Where that instance sees it" }),
        read_only: z.boolean().openapi({ description: "Whether that instance mounts it read-only" }),
      }))
      .openapi({ description: "The instances it is mounted in, until their hosts have removed their containers; at most one read-write" }),
    saved_at: timestamp.nullable().openapi({ description: "When its latest version was saved; null at version 0" }),
    created_at: timestamp.openapi({ description: "When it was created" }),
    price_month_micros: z.number().int().openapi({ description: "What `stored_bytes` costs a month at today's price, in micro-dollars" }),
    delete_at: timestamp.nullable().openapi({ description: "When it will be deleted because the balance is used up; null when it will not" }),
  })
  .openapi("Volume");

export const VolumeList = z.object({ items: z.array(Volume).openapi({ description: "Oldest first" }) }).openapi("VolumeList");

export const CreateVolumeBody = z
  .object({
    name: volumeName.openapi({ description: `1 to 63 of a-z, 0-9 and -, starting with a letter; unique in the account (409 conflict otherwise)`, example: "datasets" }),
    size_gb: sizeGb.optional().openapi({ description: `Its size in GB, ${VOLUME_SIZE_GB.min} to ${VOLUME_SIZE_GB.max}; required unless \`from_snapshot\` is given (then the snapshot's volume's size when left out)` }),
    from_snapshot: z.string("must be a snapshot's id").optional().openapi({ description: "A snapshot's id (`snap_…`) of any of the account's volumes: the new volume holds its content, as version 1" }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.size_gb === undefined && body.from_snapshot === undefined) ctx.addIssue({ code: "custom", path: ["size_gb"], message: "is required unless from_snapshot is given" });
  })
  .openapi("CreateVolume");

export const UpdateVolumeBody = z
  .object({
    name: volumeName.optional().openapi({ description: "Its new name" }),
    size_gb: sizeGb.optional().openapi({ description: "Its new size in GB: at least its size now (a volume only grows)" }),
  })
  .strict()
  .refine((body) => body.name !== undefined || body.size_gb !== undefined, { message: "must set name, size_gb or both" })
  .openapi("UpdateVolume");

export const Snapshot = z
  .object({
    id: z.string().openapi({ description: "`snap_` and 16 lowercase base32 characters", example: "snap_abcdefghijklmnop" }),
    name: z.string().openapi({ description: "The name given, or `v` and its version" }),
    version: z.number().int().openapi({ description: "The volume's version it holds" }),
    stored_bytes: z.number().int().openapi({ description: "The bytes of its chunks (shared with the volume's other versions and snapshots where the same)" }),
    created_at: timestamp.openapi({ description: "When it was taken" }),
  })
  .openapi("Snapshot");

export const SnapshotList = z.object({ items: z.array(Snapshot).openapi({ description: "Newest first" }) }).openapi("SnapshotList");

export const CreateSnapshotBody = z
  .object({ name: z.string("must be a string").min(1, "must be 1 to 100 characters").max(100, "must be 1 to 100 characters").optional().openapi({ description: "`v` and the version when left out" }) })
  .strict()
  .openapi("CreateSnapshot");

export const SNAPSHOTS_RULE = `A volume keeps at most ${MAX_VOLUME_SNAPSHOTS} snapshots (409 conflict past that).`;
