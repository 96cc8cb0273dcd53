// A container's volumes on the docker runtime: each working copy (a folder of the host's, under the
// instance's own state) bind-mounted at the mount's path, read-only for a read-only mount; and who
// the container runs as, whom the restore makes its files' owner, so what runs in it reads and
// writes the volume as its own files.
import { Readable } from "node:stream";
import type Docker from "dockerode";
import type { ContainerSpec } from "../../protocol/messages.ts";
import { readTar } from "../../standards/tar-read.ts";
import { resolveContainerUser, type ContainerUser } from "./container-user.ts";
import { statusOf } from "./docker-pull.ts";

/** The bind mounts of the spec's volumes, each working copy where `dirOf` says. */
export function volumeMounts(spec: ContainerSpec, dirOf: (volumeId: string) => string): Docker.MountSettings[] {
  return (spec.volumes ?? []).map((mount) => ({ Type: "bind", Source: dirOf(mount.volume_id), Target: mount.path, ReadOnly: mount.read_only }));
}

/** The uid and gid the created container runs as (its Config.User, against its image's passwd and group files). */
export async function userOf(container: Docker.Container): Promise<ContainerUser> {
  const info = await container.inspect();
  const user = info.Config.User ?? "";
  // A numeric uid:gid needs no files; otherwise the image's own files say who a name is.
  if (/^\d+:\d+$/.test(user)) return resolveContainerUser(user, "", "");
  const [passwd, group] = await Promise.all([readContainerFile(container, "/etc/passwd"), readContainerFile(container, "/etc/group")]);
  return resolveContainerUser(user, passwd, group);
}

/** A small text file of the container's, "" when it has none. */
async function readContainerFile(container: Docker.Container, path: string): Promise<string> {
  const archive = await (container.getArchive({ path }) as Promise<NodeJS.ReadableStream>).catch((error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)));
  if (!archive) return "";
  const chunks: Uint8Array[] = [];
  for await (const { entry, body } of readTar(Readable.toWeb(archive as Readable) as ReadableStream<Uint8Array>)) {
    if (entry.type !== "file") continue;
    for await (const chunk of body) chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
