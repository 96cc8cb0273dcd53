// How a volume is named on the command line: by its name or its id, and as `gpu launch --volume`
// mounts it, `<name or id>[:/path][:ro]`. Only the form is checked here: the API judges the path
// and whether the volume exists, naming the field.
import { InvalidArgumentError } from "@commander-js/extra-typings";

/** A volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id. */
export const VOLUME_REF = /^([a-z][a-z0-9-]{0,62}|vol_[a-z2-7]{16})$/;
export const VOLUME_REF_RULE = "a volume's name (1 to 63 of a-z, 0-9 and -, starting with a letter) or its id (vol_…)";

export interface VolumeMount {
  volume_id: string;
  path?: string;
  read_only?: boolean;
}

const FORM = "<name or id>[:/path][:ro], e.g. datasets:/data:ro";

/** One `--volume` value, added to those before it (commander's repeatable option). */
export function addVolumeMount(value: string, mounts: VolumeMount[] = []): VolumeMount[] {
  const [ref = "", ...rest] = value.split(":");
  if (!VOLUME_REF.test(ref)) throw new InvalidArgumentError(`must start with ${VOLUME_REF_RULE}: ${FORM}`);
  const mount: VolumeMount = { volume_id: ref };
  if (rest.at(-1) === "ro") {
    mount.read_only = true;
    rest.pop();
  }
  if (rest.length > 1) throw new InvalidArgumentError(`takes one path and then only :ro: ${FORM}`);
  const [path] = rest;
  if (path !== undefined) {
    if (!path.startsWith("/")) throw new InvalidArgumentError(`the path after the volume must be absolute (or :ro alone): ${FORM}`);
    mount.path = path;
  }
  return [...mounts, mount];
}
