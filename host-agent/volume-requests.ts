// The agent's requests about volumes to its MachineDO, each answered by request id: presigned URLs
// (`volume_sign` → `volume_signed`) and commits of saved versions (`volume_commit` →
// `volume_committed`). A request fails when its answer does not come in time or when the connection
// it went out on drops: the answer would never come, and a save or restore is tried again whole.
import type { AgentMessage, ServerMessage, VolumeCommit, VolumeSign } from "../protocol/index.ts";
import type { VolumeSigner } from "./volumes/volume-library.ts";

type Answer = Extract<ServerMessage, { type: "volume_signed" | "volume_committed" }>;

/** How long the MachineDO may take to sign: it signs up to MAX_SIGNED_NAMES URLs locally. */
export const SIGN_TIMEOUT_MS = 60_000;
/** How long a commit may take: the account reads the manifest and checks every chunk it names is stored. */
export const COMMIT_TIMEOUT_MS = 5 * 60_000;

interface Pending {
  type: Answer["type"];
  resolve(answer: Answer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class VolumeRequests {
  readonly #send: (message: AgentMessage) => boolean;
  readonly #timeouts: { signMs: number; commitMs: number };
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  /** `send` says whether the message went out (false: no connection now). */
  constructor(send: (message: AgentMessage) => boolean, timeouts = { signMs: SIGN_TIMEOUT_MS, commitMs: COMMIT_TIMEOUT_MS }) {
    this.#send = send;
    this.#timeouts = timeouts;
  }

  /** What the volume library signs and commits with for the volumes of one instance. */
  signerFor(instanceId: string): VolumeSigner {
    return {
      sign: (volumeId, method, names) => this.sign({ instance_id: instanceId, volume_id: volumeId, method, names }),
      commit: (volumeId, baseVersion, manifest, bytesSent) =>
        this.commit({ instance_id: instanceId, volume_id: volumeId, base_version: baseVersion, manifest, bytes_sent: bytesSent }),
    };
  }

  /** One URL per name, in order; throws with the platform's reason when it refused. */
  async sign(request: Omit<VolumeSign, "type" | "request_id">): Promise<string[]> {
    const answer = await this.#ask({ type: "volume_sign", ...request }, "volume_signed", this.#timeouts.signMs);
    if (answer.type !== "volume_signed") throw new Error("answered with the wrong message");
    if (answer.error) throw new Error(`the platform refused to sign: ${answer.error}`);
    if (answer.urls.length !== request.names.length) throw new Error(`the platform signed ${answer.urls.length} URLs for ${request.names.length} names`);
    return answer.urls;
  }

  /** The version committed, or null with the platform's reason; throws when no answer came. */
  async commit(request: Omit<VolumeCommit, "type" | "request_id">): Promise<{ version: number | null; error: string }> {
    const answer = await this.#ask({ type: "volume_commit", ...request }, "volume_committed", this.#timeouts.commitMs);
    if (answer.type !== "volume_committed") throw new Error("answered with the wrong message");
    return { version: answer.version, error: answer.error };
  }

  /** An answer from the MachineDO: settles its request, if still waiting (one that timed out is dropped). */
  receive(answer: Answer): void {
    const pending = this.#pending.get(answer.request_id);
    if (!pending || pending.type !== answer.type) return;
    this.#settle(answer.request_id);
    pending.resolve(answer);
  }

  /** The connection dropped: no answer to what is in flight will come. */
  disconnected(): void {
    for (const id of [...this.#pending.keys()]) this.#fail(id, "the connection to the platform dropped before it answered");
  }

  /** How many requests await an answer. */
  inFlight(): number {
    return this.#pending.size;
  }

  #ask(message: Omit<VolumeSign, "request_id"> | Omit<VolumeCommit, "request_id">, type: Answer["type"], timeoutMs: number): Promise<Answer> {
    const requestId = this.#takeId();
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => this.#fail(requestId, `the platform did not answer within ${timeoutMs / 1000} s`), timeoutMs);
      this.#pending.set(requestId, { type, resolve, reject, timer });
      if (!this.#send({ ...message, request_id: requestId })) this.#fail(requestId, "no connection to the platform now");
    });
  }

  #fail(requestId: number, reason: string): void {
    const pending = this.#pending.get(requestId);
    if (!pending) return;
    this.#settle(requestId);
    pending.reject(new Error(reason));
  }

  #settle(requestId: number): void {
    clearTimeout(this.#pending.get(requestId)?.timer);
    this.#pending.delete(requestId);
  }

  /** Ids wrap within the protocol's range, skipping any still in flight. */
  #takeId(): number {
    do this.#nextId = this.#nextId >= 0xffffffff ? 1 : this.#nextId + 1;
    while (this.#pending.has(this.#nextId));
    return this.#nextId;
  }
}
