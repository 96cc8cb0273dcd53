// /v1/volumes: the account's volumes (create, list, read, rename and grow, delete, save now) and their
// snapshots, with a key or a session. The AccountDO is the authority (durable-objects/account/volumes/);
// the files routes are volume-files-routes.ts's.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { newVolumeId } from "../../../core/ids.ts";
import type { VolumeAnswer, VolumeCall } from "../../../durable-objects/contracts/volumes.ts";
import type { ApiEnv } from "../context.ts";
import { json, jsonBody } from "../schemas/common.ts";
import {
  CreateSnapshotBody, CreateVolumeBody, Snapshot, SnapshotList, SNAPSHOTS_RULE, UpdateVolumeBody, Volume, VOLUME_ID_DESCRIPTION, VolumeList,
} from "../schemas/volume.ts";
import { validationHook } from "../validation.ts";
import { copySnapshot } from "../volumes/copy-snapshot.ts";
import { callerRoute } from "./caller-route.ts";

const VolumeParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: VOLUME_ID_DESCRIPTION }, example: "vol_abcdefghijklmnop" }),
});
const SnapshotParams = VolumeParam.extend({
  snapshot_id: z.string().openapi({ param: { name: "snapshot_id", in: "path", description: "The snapshot's id from the volume's snapshots" }, example: "snap_abcdefghijklmnop" }),
});

const listRoute = callerRoute([], {
  method: "get", path: "/volumes", summary: "The account's volumes",
  description: "Every volume of the account, oldest first, with its version, sizes and the instances it is attached to.",
  responses: { 200: json(VolumeList, "Volumes") },
});

const createRoute = callerRoute([400, 404, 409], {
  method: "post", path: "/volumes", summary: "Create a volume",
  description:
    "A volume is a directory kept in object storage, mounted into instances at launch (`volumes` of POST /v1/instances) and saved as " +
    "whole versions: its data outlives every instance and host. `{name, size_gb}` makes an empty one (version 0); `{name, from_snapshot}` " +
    "one holding that snapshot's content (version 1). A name the account already uses is 409 conflict.",
  request: { body: jsonBody(CreateVolumeBody) },
  responses: { 201: json(Volume, "The volume") },
});

const getRoute = callerRoute([404], {
  method: "get", path: "/volumes/{id}", summary: "One volume", request: { params: VolumeParam },
  description: "The volume by its id or its name; another account's volume is 404 not_found.",
  responses: { 200: json(Volume, "The volume") },
});

const updateRoute = callerRoute([400, 404, 409], {
  method: "patch", path: "/volumes/{id}", summary: "Rename or grow a volume",
  description: "A new `name` (409 conflict when the account uses it), a larger `size_gb` (smaller is 400 invalid naming `size_gb`: a volume only grows), or both.",
  request: { params: VolumeParam, body: jsonBody(UpdateVolumeBody) },
  responses: { 200: json(Volume, "The changed volume") },
});

const deleteRoute = callerRoute([404, 409], {
  method: "delete", path: "/volumes/{id}", summary: "Delete a volume, its snapshots and its stored data",
  description: "Every stored byte of it goes, snapshots included. While an instance has it attached, 409 conflict naming the instance: " +
    "destroy that one first (the volume is free once its host has removed the container).",
  request: { params: VolumeParam },
  responses: { 204: { description: "Deleted" } },
});

const saveRoute = callerRoute([404, 409], {
  method: "post", path: "/volumes/{id}/save", summary: "Save a volume now",
  description: "The host of the running instance that has it attached read-write saves it now, sending only what changed; `version` grows " +
    "once it is stored (unless nothing changed), and the instance's events say so. 409 not_running unless such an instance is running.",
  request: { params: VolumeParam },
  responses: { 202: { description: "The host was asked to save it" } },
});

const snapshotsRoute = callerRoute([404], {
  method: "get", path: "/volumes/{id}/snapshots", summary: "A volume's snapshots", request: { params: VolumeParam },
  description: "Newest first. A snapshot keeps its version's data stored whatever the volume saves after; POST /v1/volumes with `from_snapshot` makes a volume of it.",
  responses: { 200: json(SnapshotList, "Snapshots") },
});

const snapshotRoute = callerRoute([400, 404, 409], {
  method: "post", path: "/volumes/{id}/snapshots", summary: "Snapshot a volume's latest version",
  description: `Keeps the latest version as it is now. ${SNAPSHOTS_RULE}`,
  request: { params: VolumeParam, body: jsonBody(CreateSnapshotBody, false) },
  responses: { 201: json(Snapshot, "The snapshot") },
});

const deleteSnapshotRoute = callerRoute([404], {
  method: "delete", path: "/volumes/{id}/snapshots/{snapshot_id}", summary: "Delete a snapshot",
  description: "The data only it kept is freed.",
  request: { params: SnapshotParams },
  responses: { 204: { description: "Deleted" } },
});

/** The volume the AccountDO answered with (`call`'s answer holds one). */
function volumeOf(answer: VolumeAnswer) {
  if (!("volume" in answer)) throw new ApiError("internal", "the account answered without the volume");
  return answer.volume;
}

export const volumeRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const answer = unwrap(await accountOf(c.env, c.var.accountId).volumesFor(c.var.credential, { op: "list" }));
    return c.json({ items: "volumes" in answer ? answer.volumes : [] }, 200);
  })
  .openapi(createRoute, async (c) => {
    const { name, size_gb, from_snapshot } = c.req.valid("json");
    const account = accountOf(c.env, c.var.accountId);
    if (from_snapshot === undefined) return c.json(unwrap(await account.createVolume(c.var.credential, { name, size_gb: size_gb! })).volume, 201);
    // The snapshot's objects are copied under the new volume's id first; the account then checks the copy and makes the volume.
    const { source } = unwrap(await account.snapshotSource(c.var.credential, from_snapshot));
    const size = size_gb ?? source.size_gb;
    const id = newVolumeId();
    const manifest = await copySnapshot(c.env, source, { volumeId: id, maxBytes: size * 1e9 });
    const from = manifest === null ? {} : { from: { manifest, version: source.version } };
    return c.json(unwrap(await account.createVolume(c.var.credential, { name, size_gb: size, id, ...from })).volume, 201);
  })
  .openapi(getRoute, async (c) => c.json(volumeOf(await call(c, { op: "get", volume: c.req.valid("param").id })), 200))
  .openapi(updateRoute, async (c) => c.json(volumeOf(await call(c, { op: "update", volume: c.req.valid("param").id, ...c.req.valid("json") })), 200))
  .openapi(deleteRoute, async (c) => {
    await call(c, { op: "delete", volume: c.req.valid("param").id });
    return c.body(null, 204);
  })
  .openapi(saveRoute, async (c) => {
    await call(c, { op: "save", volume: c.req.valid("param").id });
    return c.body(null, 202);
  })
  .openapi(snapshotsRoute, async (c) => {
    const answer = await call(c, { op: "snapshots", volume: c.req.valid("param").id });
    return c.json({ items: "snapshots" in answer ? answer.snapshots : [] }, 200);
  })
  .openapi(snapshotRoute, async (c) => {
    const answer = await call(c, { op: "snapshot", volume: c.req.valid("param").id, ...c.req.valid("json") });
    if (!("snapshot" in answer)) throw new ApiError("internal", "the account answered without the snapshot");
    return c.json(answer.snapshot, 201);
  })
  .openapi(deleteSnapshotRoute, async (c) => {
    const { id, snapshot_id } = c.req.valid("param");
    await call(c, { op: "delete_snapshot", volume: id, snapshot_id });
    return c.body(null, 204);
  });

/** The caller's `volumeCall`, answered or thrown as its refusal. */
async function call(c: { env: ApiEnv["Bindings"]; var: ApiEnv["Variables"] }, volumeCall: VolumeCall): Promise<VolumeAnswer> {
  return unwrap(await accountOf(c.env, c.var.accountId).volumesFor(c.var.credential, volumeCall));
}
