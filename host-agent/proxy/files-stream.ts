// An instance's files as the answer to the MachineDO's `files_open`, shaped like a proxied HTTP
// exchange, running or stopped: `get` answers a tar of the path (200) or 404; `put` extracts the
// request body, a tar, into the directory (204), or answers 404 when there is none, 400 when the tar
// is not one. Errors carry the API's JSON body, which the MachineDO relays as it is.
import { PassThrough, Readable } from "node:stream";
import type { ServerMessage } from "../../protocol/messages.ts";
import type { DataKind } from "../../protocol/mux/frames.ts";
import { errorMessage } from "../log.ts";
import type { ContainerRuntime } from "../runtime/runtime.ts";
import { ResponseStream } from "./response-stream.ts";

export type FilesOpenMessage = Extract<ServerMessage, { type: "files_open" }>;
export type FilesRuntime = Pick<ContainerRuntime, "readArchive" | "writeArchive">;

export class FilesStream extends ResponseStream<FilesOpenMessage> {
  #source: Readable | null = null;
  /** The request body on its way to the runtime, for a put. */
  #upload: PassThrough | null = null;
  #answered = false;

  start(runtime: FilesRuntime): void {
    const { op, instance_id: instanceId, path } = this.message;
    if (op === "get") {
      runtime.readArchive(instanceId, path).then(
        (source) => (source ? this.#send(source) : this.#answer(404, "not_found", `no file or directory ${path} in the instance`)),
        (error: unknown) => this.#answer(502, "upstream_unavailable", `the host could not read ${path}: ${errorMessage(error)}`),
      );
      return;
    }
    this.#upload = new PassThrough();
    runtime.writeArchive(instanceId, path, this.#upload).then(
      (written) => (written ? this.#answer(204) : this.#answer(404, "not_found", `no directory ${path} in the instance to extract into`)),
      (error: unknown) => this.#answer(400, "bad_request", `the body must be a tar archive: ${errorMessage(error)}`),
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
    if (!this.receive(payload.byteLength)) return this.fail("request body exceeded the flow-control window");
    upload.write(Buffer.from(payload), () => this.consumed(payload.byteLength));
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
    });
  }

  /**
   * A head without a body (204), or an error in the API's format. A put's answer waits until its body
   * has all arrived (read and dropped when refused): a client still sending when the answer comes
   * would see its connection broken instead of the answer.
   */
  #answer(status: number, error?: string, message?: string): void {
    const upload = this.#upload;
    if (upload && !upload.writableEnded) {
      // Whatever still read it (a tar that stopped at the archive's end, an engine that refused) lets go first, or it could pause it again.
      upload.unpipe();
      upload.resume();
      const answer = () => this.#answer(status, error, message);
      return void upload.once("end", answer).once("close", answer);
    }
    if (this.closed || this.#answered) return;
    this.#answered = true;
    if (error === undefined) {
      this.transport.send({ type: "http_response", stream: this.message.stream, status, headers: [] });
      return this.finish();
    }
    const body = Readable.from([Buffer.from(JSON.stringify({ error, message }))]);
    this.respond(status, [["content-type", "application/json"]], body, { onFinished: () => this.finish(), onFailed: (reason) => this.fail(reason) });
  }
}
