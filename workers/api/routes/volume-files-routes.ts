// /v1/volumes/{id}/files: a volume's files in and out as tar streams with no instance at all. The
// bytes go between the caller and the bucket through this Worker (the binding), never through a
// Durable Object: the volume's AccountDO says where its latest version is and commits what a PUT
// stored as the next version, refusing it if the volume moved on meanwhile or is attached read-write.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { clock } from "../../../core/clock.ts";
import { accountOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { errorText, log } from "../../../core/log.ts";
import { volumePath } from "../../../protocol/volumes.ts";
import type { ApiEnv } from "../context.ts";
import { ErrorBody, json } from "../schemas/common.ts";
import { checkUploadPart, finalField, partStaged, uploadPartFields } from "../schemas/upload-part.ts";
import { VOLUME_ID_DESCRIPTION } from "../schemas/volume.ts";
import { validationHook } from "../validation.ts";
import { archiveOf } from "../volumes/files-archive.ts";
import { receivePart } from "../volumes/file-upload.ts";
import { extractArchive } from "../volumes/files-extract.ts";
import { shown } from "../volumes/manifest-tree.ts";
import { objectKey, readManifest, volumePlace, writeManifest } from "../volumes/volume-objects.ts";
import { callerRoute } from "./caller-route.ts";

const PATH_RULE = "must be an absolute path in the volume (starting with /), without empty, . or .. parts, at most 4096 characters";

/** `/a/b` (or `/a/b/`) as a volume path `a/b`; `/` is the root, ""; null for what is no such path. */
function volumePathOf(path: string): string | null {
  if (!path.startsWith("/")) return null;
  const inner = path.slice(1).replace(/\/$/, "");
  return inner === "" || volumePath.safeParse(inner).success ? inner : null;
}

const VolumeParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: VOLUME_ID_DESCRIPTION }, example: "vol_abcdefghijklmnop" }),
});

const pathQuery = (description: string, example: string) =>
  z.object({
    path: z
      .string(PATH_RULE)
      .refine((path) => volumePathOf(path) !== null, PATH_RULE)
      .openapi({ param: { name: "path", in: "query", description }, example }),
  });

const tar = { "application/x-tar": { schema: z.string().openapi({ format: "binary" }) } };

const getRoute = callerRoute([400, 404], {
  method: "get", path: "/volumes/{id}/files", summary: "A file or directory of a volume, as a tar stream",
  description:
    "`application/x-tar` of the path at the volume's latest version, with its own name at the root (as `docker cp` makes it); `/` gives the volume's " +
    "content itself. No instance is needed: the bytes come from storage, with a Content-Length. 404 not_found when the volume or the path does not exist.",
  request: { params: VolumeParam, query: pathQuery("An absolute path in the volume, e.g. /datasets or /; not where an instance mounts it", "/datasets") },
  responses: { 200: { description: "The tar archive, streamed", content: tar } },
});

const putQuery = pathQuery("The directory of the volume to extract into, e.g. /datasets or /; with `upload`, the file to write, e.g. /datasets/weights.bin", "/datasets")
  .extend({ ...uploadPartFields, final: finalField("the volume as its next version") })
  .superRefine((query, context) => checkUploadPart(query, context, (path) => (path.endsWith("/") ? "must name a file with upload (not / nor ending in /)" : null)));

const putRoute = callerRoute([400, 404, 409, 413], {
  method: "put", path: "/volumes/{id}/files", summary: "Extract a tar stream into a directory of a volume, or upload a file in parts",
  description:
    "The body is `application/x-tar` (as `tar -c` or the Docker archive API write it: files, directories and symbolic links; hard links, devices, " +
    "FIFOs, absolute names and names with `..` are refused with 400, as is a malformed or truncated archive, and nothing is saved), extracted into " +
    "the directory, made if absent with its parents, over the latest version: an entry replaces what is at its path. Answers 204 once the result " +
    "is the volume's next version; only chunks the volume does not hold yet are stored. No instance is needed. 409 conflict while an instance has " +
    "the volume attached read-write, when a file or link of the volume is where a directory must be, or when the volume got a new version meanwhile " +
    "(send it again); 413 payload_too_large when the content would be over the volume's `size_gb`.\n\n" +
    "With `upload` (the client's id), `offset` and a `Content-Length`, the body is `application/octet-stream`, the bytes of the single file `path` from `offset`: " +
    "files of any size go up in parts, resumable, as into an instance. Every part but the final one is whole chunks of 8 MiB (8388608 bytes), else 400 invalid naming " +
    "`offset` or the body. A part answers 202 with `Upload-Offset`, the bytes staged so far; the part with `final=1` writes the file into the volume as one regular file " +
    "(its directory made if absent, as for a tar) and answers 204 once that is the volume's next version. A part whose `offset` is not `Upload-Offset` is 409 conflict, with " +
    "`Upload-Offset` to resume from; a file that would put the volume over its `size_gb` (or the volume's uploads together past it) is 413 payload_too_large as soon as the bytes staged " +
    "say so, with `Upload-Offset`: what is staged stays, to go on from once the volume is grown. 409 conflict while an instance has the volume attached read-write. " +
    "An upload untouched for an hour is forgotten. Once written, an upload's id answers for an hour with the file's size as `Upload-Offset`: its final part sent again " +
    "from there (its answer was lost) is 204 again, any other part 409 conflict.",
  request: { params: VolumeParam, query: putQuery },
  responses: {
    ...partStaged,
    204: { description: "Extracted, or the upload's file written: the volume's next version" },
    413: json(ErrorBody, "The volume's content would be over its size_gb (payload_too_large)"),
  },
});

export const volumeFilesRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(getRoute, async (c) => {
    const id = c.req.valid("param").id;
    const path = volumePathOf(c.req.valid("query").path)!;
    const account = accountOf(c.env, c.var.accountId);
    // A version committed between the two reads can free the manifest read second: then once more.
    for (let attempt = 1; ; attempt++) {
      const { content } = unwrap(await account.volumeContent(c.var.credential, id));
      const place = volumePlace(c.env, content.account_id, content.volume_id);
      const manifest = await readManifest(place, content.manifest);
      if (!manifest) {
        if (attempt < 2) continue;
        throw new ApiError("conflict", `volume ${id} is getting new versions faster than it can be read: try again`);
      }
      const archive = archiveOf(place, manifest, path);
      if (!archive) throw new ApiError("not_found", `path: no file or directory ${shown(path)} in volume ${id}`);
      const { readable, writable } = new FixedLengthStream(archive.bytes);
      archive.writeTo(writable).catch((error: unknown) => {
        log("warn", "volume_archive_cut", { account_id: content.account_id, volume_id: content.volume_id, error: errorText(error) });
      });
      return new Response(readable, { headers: { "content-type": "application/x-tar", "content-length": String(archive.bytes) } });
    }
  })
  .openapi(putRoute, async (c) => {
    const id = c.req.valid("param").id;
    const { upload, offset, final } = c.req.valid("query");
    const path = volumePathOf(c.req.valid("query").path)!;
    const account = accountOf(c.env, c.var.accountId);
    if (upload !== undefined) {
      const length = c.req.header("content-length");
      if (length === undefined || !/^\d{1,16}$/.test(length)) throw new ApiError("bad_request", "Content-Length: a part of an upload into a volume is sent with its length in bytes");
      return receivePart(c.env, account, c.var.credential, { volume: id, upload, path, offset: offset!, final: final === "1", length: Number(length) }, c.req.raw.body);
    }
    const { content } = unwrap(await account.volumeContent(c.var.credential, id));
    if (content.attached_read_write !== null) {
      throw new ApiError("conflict", `volume ${id} is attached read-write to instance ${content.attached_read_write}: only that instance writes it until it is destroyed`);
    }
    const body = c.req.raw.body;
    if (!body) throw new ApiError("bad_request", "the request body is required: a tar archive (Content-Type: application/x-tar)");
    const place = volumePlace(c.env, content.account_id, content.volume_id);
    const base = await readManifest(place, content.manifest);
    if (!base) throw new ApiError("conflict", `volume ${id} got a new version while this was sent: send it again`);
    const { manifest, bytesSent } = await extractArchive(place, base, path, body, content.max_bytes, clock.now());
    const name = await writeManifest(place, manifest);
    const committed = await account.commitVolumeFiles(c.var.credential, {
      volume_id: content.volume_id, instance_id: null, base_version: content.version, manifest: name, bytes_sent: bytesSent,
    });
    if (!committed.ok) {
      // Refused, so no version names it (a commit that failed on its way back may have: that one stays).
      await place.bucket.delete(objectKey(place, name));
      unwrap(committed);
    }
    return c.body(null, 204);
  });
