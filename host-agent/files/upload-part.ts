// One part of a resumable upload, as the files stream answers it: staged after the bytes before it,
// and on the final part the staged file written into the container through the runtime's archive
// write (a one-entry tar made on the fly), as any put is. The answers are the API's.
import { posix } from "node:path";
import { Readable } from "node:stream";
import type { ServerMessage } from "../../protocol/messages.ts";
import { errorMessage } from "../log.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { singleFileTar } from "./single-file-tar.ts";
import type { UploadStaging } from "./upload-staging.ts";

type FilesOpenMessage = Extract<ServerMessage, { type: "files_open" }>;
export type UploadPartMessage = FilesOpenMessage & { upload: NonNullable<FilesOpenMessage["upload"]> };
type FilesRuntime = Pick<ContainerRuntime, "writeArchive">;

/** How a files request is answered: a status with, for an error, the API's code and message; `uploadOffset`: the bytes staged, for the client to resume from. */
export interface FilesAnswer {
  status: number;
  error?: string;
  message?: string;
  uploadOffset?: number;
}

/** An archive with no entry: extracting it into a directory asks only whether the directory is there. */
const emptyTar = () => Readable.from([Buffer.alloc(1024)]);

export async function receiveUploadPart(runtime: FilesRuntime, staging: UploadStaging, message: UploadPartMessage, body: Readable): Promise<FilesAnswer> {
  const { instance_id: instanceId, path, upload } = message;
  const key = { instanceId, uploadId: upload.id };
  const directory = posix.dirname(path);
  const noDirectory: FilesAnswer = { status: 404, error: "not_found", message: `no directory ${directory} in the instance to write ${posix.basename(path)} into` };
  // Asked before the first part is staged, not after the whole file has come.
  if (upload.offset === 0 && !(await runtime.writeArchive(instanceId, directory, emptyTar()))) return noDirectory;
  const outcome = await staging.append(key, upload.offset, body, upload.max_bytes);
  switch (outcome.kind) {
    case "busy":
      return { status: 409, error: "conflict", message: `another part of upload ${upload.id} is being received: send this one again once it is answered` };
    case "wrong_offset":
      return {
        status: 409, error: "conflict", uploadOffset: outcome.size,
        message: `upload ${upload.id} has ${outcome.size} bytes staged, not ${upload.offset}: send the part from offset ${outcome.size}`,
      };
    case "too_large":
      return {
        status: 413, error: "payload_too_large",
        message: `the instance's uploads would stage more than its disk (${outcome.maxBytes} bytes): nothing of this upload is kept`,
      };
    case "no_room":
      return {
        status: 413, error: "payload_too_large", uploadOffset: outcome.size,
        message: `the host has no room to stage uploads now (${outcome.reason}): upload ${upload.id} has ${outcome.size} bytes staged; ` +
          `send the rest from there later (an upload untouched for an hour is removed)`,
      };
    case "failed":
      return { status: 502, error: "upstream_unavailable", message: `the host could not stage the part: ${outcome.reason}` };
    case "cut_short":
      return { status: 400, error: "bad_request", uploadOffset: outcome.size, message: `the part broke off: ${outcome.size} bytes are staged` };
    case "written":
      // The final part sent again (its answer was lost) at the file's whole size: the file is there.
      if (upload.final && upload.offset === outcome.size) return { status: 204 };
      return {
        status: 409, error: "conflict", uploadOffset: outcome.size,
        message: `upload ${upload.id} is complete: its ${outcome.size} bytes were written to the instance (a new file needs a new upload id)`,
      };
    case "staged":
      if (!upload.final) return { status: 202, uploadOffset: outcome.size };
  }
  return writeStaged(runtime, staging, message, noDirectory);
}

/** Writes the staged file into the container as `path`, then marks the upload written; kept staged when the write fails, so a final part may try again. */
async function writeStaged(runtime: FilesRuntime, staging: UploadStaging, message: UploadPartMessage, noDirectory: FilesAnswer): Promise<FilesAnswer> {
  const { instance_id: instanceId, path, upload } = message;
  const key = { instanceId, uploadId: upload.id };
  const staged = await staging.take(key);
  if (!staged) return { status: 409, error: "conflict", message: `another part of upload ${upload.id} is being received: send the final part again once it is answered` };
  const tar = singleFileTar(posix.basename(path), staged.file, staged.size, new Date());
  try {
    if (!(await runtime.writeArchive(instanceId, posix.dirname(path), tar))) return noDirectory;
    await staging.written(key, staged.size);
    return { status: 204 };
  } catch (error) {
    return {
      status: 409, error: "conflict", uploadOffset: staged.size,
      message: `the host could not write ${path}: ${errorMessage(error)} (the upload stays staged: send the final part again from offset ${staged.size})`,
    };
  } finally {
    // Whatever the runtime left unread of the staged file is let go before another part may touch it.
    tar.destroy();
    staged.release();
  }
}
