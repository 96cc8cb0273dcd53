// The far side of `gpu cp`: a path in an instance (`<id>:/path`) or in a volume
// (`vol:<name or id>:/path`), each reached through its own files route. Anything else is a local path
// (`./vol:x` names a local file called `vol:x`).
import { CliError, USAGE_EXIT } from "../errors.ts";
import { VOLUME_REF, VOLUME_REF_RULE } from "../volume-mount.ts";

export interface Remote {
  kind: "instance" | "volume";
  /** The instance's id, or the volume's name or id. */
  id: string;
  path: string;
  /** As the user wrote it, for messages. */
  text: string;
}

const INSTANCE = /^(i-[a-z2-7]{16}):(.*)$/s;
const VOLUME = /^vol:([^:]*)(?::(.*))?$/s;

/** The remote side `argument` names, or null for a local path; a malformed one is a usage error saying what is wrong. */
export function remoteOf(argument: string): Remote | null {
  const instance = INSTANCE.exec(argument);
  if (instance) return { kind: "instance", id: instance[1]!, path: absolute(argument, instance[2]!, "instance", `${instance[1]}:/data`), text: argument };
  const volume = VOLUME.exec(argument);
  if (!volume) return null;
  const [, ref = "", path] = volume;
  if (!VOLUME_REF.test(ref)) {
    throw new CliError(`${argument}: after vol: comes ${VOLUME_REF_RULE}, e.g. vol:datasets:/imagenet`, USAGE_EXIT);
  }
  if (path === undefined) throw new CliError(`${argument}: the volume's path comes after its name, e.g. vol:${ref}:/ for the whole volume`, USAGE_EXIT);
  return { kind: "volume", id: ref, path: absolute(argument, path, "volume", `vol:${ref}:/data`), text: argument };
}

function absolute(argument: string, path: string, kind: Remote["kind"], example: string): string {
  if (!path.startsWith("/")) throw new CliError(`${argument}: the ${kind}'s path must be absolute (e.g. ${example})`, USAGE_EXIT);
  return path;
}

/** The files route of the remote's instance or volume, without a query. */
export function filesUrl(apiUrl: string, remote: Remote): string {
  return `${apiUrl}/v1/${remote.kind === "volume" ? "volumes" : "instances"}/${encodeURIComponent(remote.id)}/files`;
}

/** The files route for the remote's own path. */
export function pathUrl(apiUrl: string, remote: Remote, path = remote.path): string {
  return `${filesUrl(apiUrl, remote)}?${new URLSearchParams({ path })}`;
}
