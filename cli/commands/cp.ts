// `gpu cp <src> <dst>`: files and directories between here and an instance (running or stopped) or
// a volume (no instance needed), one side `<id>:<path>` or `vol:<name>:<path>`, as tar streams
// through the files routes (GET/PUT /v1/instances/{id}/files, /v1/volumes/{id}/files; nothing
// needed in the image). Directories are copied whole (`-r` is implied), named as `cp -r` and
// `scp -r` name them both ways: into a destination directory that exists, else as the new name.
// Archives are packed here and unpacked by the host's `tar`.
// A file bigger than PART_BYTES goes up in resumable parts instead (../files/upload-in-parts.ts; to a
// volume, parts of whole 8 MiB chunks), and a directory too big for one tar in several requests
// (../files/directory-upload.ts); both again in smaller requests when something in front of the
// service refuses one as too large.
// A progress line on stderr on a terminal; then one line on stdout saying what was copied (none with --quiet).
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, posix, resolve } from "node:path";
import { Readable, Transform } from "node:stream";
import { Command } from "@commander-js/extra-typings";
import { ok, type GpuClient } from "../../client/index.ts";
import { CliError, USAGE_EXIT } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { uploadDirectory } from "../files/directory-upload.ts";
import { untar } from "../files/host-tar.ts";
import { filesUrl, pathUrl, remoteOf, type Remote } from "../files/remote.ts";
import { remoteKind } from "../files/remote-kind.ts";
import { CappedBody, refusalOf } from "../files/streamed-put.ts";
import { putTar } from "../files/tar-upload.ts";
import { MIN_PART_BYTES, PART_BYTES, uploadInParts, VOLUME_PART_UNIT } from "../files/upload-in-parts.ts";
import { printDone } from "../format.ts";
import { ProgressLine } from "../iostreams.ts";
import { QUIET_HELP } from "../options.ts";

export function cpCommand(f: Factory) {
  return new Command("cp")
    .description("Copy a file or directory to or from an instance (running or stopped) or a volume: one side is <id>:<path> or vol:<name>:<path>")
    .argument("<src>", "what to copy: a local path, <id>:<absolute path> or vol:<name>:<absolute path>")
    .argument("<dst>", "where: an existing directory to copy into, or a new name (its parent must exist in an instance)")
    .addHelpText(
      "after",
      "\nA destination that exists as a directory receives what is copied under its own name; any other is the new name, as with cp -r.\nA file over 256 MiB goes up in resumable parts of 256 MiB, whatever its size (in a directory too), to an instance or a volume.\nA volume's root (vol:<name>:/) comes down as a directory named after the volume as you wrote it.\nA link you name is followed; links inside a directory stay links; sockets and devices are left out (FIFOs too, for a volume).\nWhat arrives in the instance belongs to its container's user.\n\nExamples:\n  gpu cp ./dataset i-abcdefghijklmnop:/data        (makes /data/dataset)\n  gpu cp ./dataset i-abcdefghijklmnop:/data/train  (makes /data/train, if there is none)\n  gpu cp ./model.safetensors i-abcdefghijklmnop:/data\n  gpu cp i-abcdefghijklmnop:/data/results ./results\n  gpu cp ./dataset vol:datasets:/                  (into a volume, no instance needed)\n  gpu cp vol:datasets:/dataset ./dataset-back",
    )
    .option("-q, --quiet", QUIET_HELP)
    .action(async (src, dst, options) => {
      const from = remoteOf(src);
      const to = remoteOf(dst);
      if ((from === null) === (to === null)) throw new CliError("one side must be <id>:<path> or vol:<name>:<path> and the other a local path", USAGE_EXIT);
      const { apiUrl, apiKey } = await f.config();
      const progress = new Transfer(f, (to ?? from)!);
      if (from) await download(pathUrl(apiUrl, from), apiKey, resolve(dst), progress, from.kind === "volume" && posix.normalize(from.path) === "/" ? from.id : null);
      else {
        if (to!.kind === "volume") await refuseWrittenVolume(await f.client(), to!);
        await upload(resolve(src), to!, apiUrl, apiKey, progress);
      }
      progress.finish();
      printDone(f.io, `Copied ${src} -> ${dst} (${megabytes(progress.bytes)})`, options);
    });
}

/** Counts the bytes that pass, shown on a terminal. */
class Transfer {
  readonly #io: Factory["io"];
  readonly #line: ProgressLine | null;
  readonly #kind: Remote["kind"];
  #bytes = 0;

  constructor(f: Factory, remote: Remote) {
    this.#io = f.io;
    this.#kind = remote.kind;
    this.#line = f.io.isStderrTty ? new ProgressLine(f.io) : null;
  }

  /** A local name that cannot be copied was left out: said on its own line. */
  readonly skipped = (name: string, what: string): void => {
    const line = `skipped ${name}: ${what} cannot be copied to ${this.#kind === "volume" ? "a volume" : "an instance"}`;
    if (this.#line) this.#line.say(line);
    else this.#io.err(line);
  };

  counter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.set(this.#bytes + chunk.byteLength);
        done(null, chunk);
      },
    });
  }

  /** `bytes` have gone; `total`: of how many, when known (a file going up in parts). */
  set(bytes: number, total?: number): void {
    this.#bytes = bytes;
    this.#line?.update(total === undefined ? `${megabytes(bytes)} copied` : `${megabytes(bytes)} of ${megabytes(total)} copied (${Math.floor((bytes * 100) / total)}%)`);
  }

  get bytes(): number {
    return this.#bytes;
  }

  finish(): void {
    this.#line?.finish();
  }
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

async function refusal(response: Response): Promise<CliError> {
  return refusalOf({ status: response.status, text: await response.text() });
}

/**
 * Reads the volume first: one that does not exist, or that an instance writes, is refused here.
 * The volume's files route refuses them before it reads the body, and a connection closed while the
 * body still goes can lose that answer.
 */
async function refuseWrittenVolume(api: GpuClient, to: Remote): Promise<void> {
  const volume = await ok(api.GET("/v1/volumes/{id}", { params: { path: { id: to.id } } }));
  const writer = volume.attachments.find((attachment) => !attachment.read_only);
  if (writer) {
    throw new CliError(`volume ${to.id} is attached read-write to instance ${writer.instance_id}, which alone writes it until it is destroyed: copy into ${writer.instance_id}:${writer.path} instead`);
  }
}

/**
 * Into an existing directory as it is named there, otherwise under the new name. A volume's root
 * comes as its content alone: it is named after the volume as given (`volumeRoot`).
 */
async function download(url: string, apiKey: string, local: string, progress: Transfer, volumeRoot: string | null): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!response.ok || !response.body) throw await refusal(response);
  const isDirectory = (await stat(local).catch(() => null))?.isDirectory() ?? false;
  let into: string;
  if (volumeRoot !== null) {
    into = isDirectory ? join(local, volumeRoot) : local;
    await directoryAt(into);
  } else {
    // Under a new name, extracted beside it first.
    into = isDirectory ? local : await mkdtemp(join(dirname(local), ".gpu-cp-"));
  }
  const unpack = untar(into);
  // tar stops reading at the archive's end marker: the padding after it has nowhere to go, and that is no failure.
  unpack.child.stdin.on("error", () => undefined);
  const body = Readable.fromWeb(response.body as never);
  const source = body.pipe(progress.counter());
  const broken = new Promise<never>((_, reject) => {
    for (const stream of [body, source]) stream.on("error", (error) => reject(new CliError(`the download broke off: ${error.message}`)));
  });
  source.pipe(unpack.child.stdin);
  await Promise.race([unpack.exited, broken]);
  if (volumeRoot !== null || into === local) return;
  const [name] = await readdir(into);
  if (name === undefined) throw new CliError("the archive was empty");
  await rename(join(into, name), local);
  await rm(into, { recursive: true, force: true });
}

/** Makes the directory `path` unless it is one; its parent must exist, as for cp. */
async function directoryAt(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" && (await stat(path)).isDirectory()) return;
    throw new CliError(code === "ENOENT" ? `no directory ${dirname(path)} to copy into` : `cannot copy into ${path}: ${(error as Error).message}`);
  }
}

async function upload(local: string, to: Remote, apiUrl: string, apiKey: string, progress: Transfer): Promise<void> {
  const found = await stat(local).catch(() => null);
  if (!found) throw new CliError(`no file or directory ${local}`);
  const { into, name } = await destination(local, found.isDirectory(), to, apiUrl, apiKey);
  const url = filesUrl(apiUrl, to);
  // A volume stores no FIFOs, and takes a file's parts as whole chunks.
  const instance = to.kind === "instance";
  const partUnit = instance ? undefined : VOLUME_PART_UNIT;
  if (found.isDirectory()) {
    return uploadDirectory({ filesUrl: url, apiKey, to: into, parent: dirname(local), name: basename(local), as: name, partUnit, fifos: instance, transfer: progress });
  }
  const inParts = (partBytes: number) =>
    uploadInParts({ filesUrl: url, apiKey, remotePath: posix.join(into, name), local, size: found.size, partBytes, partUnit, progress: (bytes) => progress.set(bytes, found.size) });
  if (found.size > PART_BYTES) return inParts(PART_BYTES);
  try {
    await putTar({
      url: pathUrl(apiUrl, to, into), apiKey, parent: dirname(local), names: [basename(local)], given: basename(local), as: name, fifos: instance,
      counter: progress.counter(), skipped: progress.skipped,
    });
  } catch (error) {
    if (!(error instanceof CappedBody)) throw error;
    // Something in front of the service takes smaller bodies than this file's tar: the file goes in parts.
    progress.set(0);
    await inParts(Math.max(MIN_PART_BYTES, Math.floor(found.size / 2)));
  }
}

/**
 * Where `local` lands, as `cp -r` places it: in the destination under its own name when that is a
 * directory, else as the destination itself (a new name, or a file replaced), in its parent.
 */
async function destination(local: string, isDirectory: boolean, to: Remote, apiUrl: string, apiKey: string): Promise<{ into: string; name: string }> {
  const path = posix.normalize(to.path).replace(/(?<=.)\/+$/, "");
  const kind = path === "/" ? "directory" : await remoteKind(pathUrl(apiUrl, to), apiKey);
  if (kind === "directory") return { into: to.path, name: basename(local) };
  if (kind === "file" && isDirectory) throw new CliError(`cannot overwrite the file ${to.text} with the directory ${local}`);
  return { into: posix.dirname(path), name: posix.basename(path) };
}
