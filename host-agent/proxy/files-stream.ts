// An instance's files as the answer to the MachineDO's `files_open`, shaped like a proxied HTTP
// exchange, running or stopped: `get` answers a tar of the path (200) or 404; `put` extracts the
// request body, a tar, into the directory (204), or answers 404 when there is none, 400 when the tar
// is not one; a put with `upload` is a part of a resumable upload (../files/upload-part.ts). Errors
// carry the API's JSON body, which the MachineDO relays as it is.
import { PassThrough, Readable } from "node:stream";
import type { ServerMessage } from "../../protocol/messages.ts";
import type { DataKind } from "../../protocol/mux/frames.ts";
import { receiveUploadPart, type FilesAnswer } from "../files/upload-part.ts";
import type { UploadStaging } from "../files/upload-staging.ts";
import { errorMessage } from "../log.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { ResponseStream } from "./response-stream.ts";

/** An archive goes in frames of at least this: it is read from a pipe in pieces of 10 to 64 KB, and nobody waits on its bytes one by one. */
const ARCHIVE_FRAME_BYTES = 512 * 1024;

export type FilesOpenMessage = Extract<ServerMessage, { type: "files_open" }>;
export type FilesRuntime = Pick<ContainerRuntime, "readArchive" | "writeArchive">;

export class FilesStream extends ResponseStream<FilesOpenMessage> {
  #source: Readable | null = null;
  /** The request body on its way to the runtime, for a put. */
  #upload: PassThrough | null = null;
  #answered = false;

  /** `staging`: where parts of resumable uploads are kept (without it, they are refused). */
  start(runtime: FilesRuntime, staging: UploadStaging | null): void {
    const { op, instance_id: instanceId, path, upload } = this.message;
    if (upload) {
      this.#upload = new PassThrough();
      if (!staging) return this.#answer({ status: 502, error: "upstream_unavailable", message: "this host takes no uploads in parts" });
      receiveUploadPart(runtime, staging, { ...this.message, upload }, this.#upload).then(
        (answer) => this.#answer(answer),
        (error: unknown) => this.#answer({ status: 502, error: "upstream_unavailable", message: `the host could not stage the part: ${errorMessage(error)}` }),
      );
      return;
    }
    if (op === "get") {
      runtime.readArchive(instanceId, path).then(
        (source) => (source ? this.#send(source) : this.#answer({ status: 404, error: "not_found", message: `no file or directory ${path} in the instance` })),
        (error: unknown) => this.#answer({ status: 502, error: "upstream_unavailable", message: `the host could not read ${path}: ${errorMessage(error)}` }),
      );
      return;
    }
    this.#upload = new PassThrough();
    runtime.writeArchive(instanceId, path, this.#upload).then(
      (written) => this.#answer(written ? { status: 204 } : { status: 404, error: "not_found", message: `no directory ${path} in the instance to extract into` }),
      (error: unknown) => this.#answer({ status: 400, error: "bad_request", message: `the body must be a tar archive: ${errorMessage(error)}` }),
    );
  }

  /** The agent cannot serve files: the client gets 502. */
  refuse(): void {
    this.fail("upstream_unavailable");
  }

  onData(_kind: DataKind, payload: Uint8Array): void {
    const upload = this.#upload;
    if (this.closed) return;
    if (!upload) return this.fail("a files get takes no body");
    if (upload.writableEnded) return this.fail("request body data after its end");
    if (!this.receive(payload.byteLength)) return this.fail("request body exceeded the flow-control window");
    upload.write(payload, () => this.consumed(payload.byteLength));
  }

  override onEnd(): void {
    this.#upload?.end();
  }

  protected release(): void {
    this.#source?.destroy();
    this.#upload?.destroy();
  }

  #send(source: Readable): void {
    if (this.closed) return void source.destroy();
    this.#source = source;
    this.respond(200, [["content-type", "application/x-tar"], ["cache-control", "no-store"]], source, {
      onFinished: () => this.finish(),
      onFailed: (reason) => this.fail(`archive ${reason}`),
    }, ARCHIVE_FRAME_BYTES);
  }

  /**
   * A head without a body (204), an empty body (202), or an error in the API's format. A put's answer
   * waits until its body has all arrived (read and dropped when refused): a client still sending when
   * the answer comes would see its connection broken instead of the answer.
   */
  #answer(answer: FilesAnswer): void {
    const upload = this.#upload;
    if (upload && !upload.writableEnded) {
      // Whatever still read it (a tar that stopped at the archive's end, an engine that refused) lets go first, or it could pause it again.
      upload.unpipe();
      upload.resume();
      const later = () => this.#answer(answer);
      return void upload.once("end", later).once("close", later);
    }
    if (this.closed || this.#answered) return;
    this.#answered = true;
    const { status, error, message, uploadOffset } = answer;
    const headers: [string, string][] = uploadOffset === undefined ? [] : [["upload-offset", String(uploadOffset)]];
    if (status === 204) {
      this.transport.send({ type: "http_response", stream: this.message.stream, status, headers });
      return this.finish();
    }
    // Any other status has a body, if only an empty one (a part's 202).
    const json = error === undefined ? null : Buffer.from(JSON.stringify({ error, message }));
    const head: [string, string][] = json ? [["content-type", "application/json"], ...headers] : headers;
    this.respond(status, head, Readable.from(json ? [json] : []), { onFinished: () => this.finish(), onFailed: (reason) => this.fail(reason) });
  }
}
