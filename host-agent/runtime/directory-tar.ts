// A tar archive holding one empty directory, for the Engine API's "put archive" (PUT
// /containers/{id}/archive): how the agent creates /data in a container before it first starts.
import { TAR_END, tarEntryHead } from "../../standards/tar.ts";

/** One directory entry `name/` owned by root with `mode`, then the end-of-archive blocks. */
export function directoryTar(name: string, mode: number): Buffer {
  return Buffer.concat([tarEntryHead({ name, type: "directory", mode, size: 0, mtime: 0 }), TAR_END]);
}
