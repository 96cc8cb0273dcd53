// Moving one volume object's bytes over a presigned URL, with the URLs asked of the platform in
// batches just before they are used: a URL lives minutes (durable-objects/volume-urls.ts), a restore or a save
// of a large volume lasts longer, so a URL older than REUSE_MS is asked again, and one refused with
// 403 (expired, or signed by a clock that disagrees with storage's) is asked again once.
import { setTimeout as sleep } from "node:timers/promises";
import { MAX_SIGNED_NAMES } from "../../protocol/volumes.ts";

/**
 * What the agent's connection does for this library: presigned URLs of one volume's objects (one
 * per name, in order; at most MAX_SIGNED_NAMES a call), and the commit of a stored save.
 */
export interface VolumeSigner {
  sign(volumeId: string, method: "GET" | "PUT", names: string[]): Promise<string[]>;
  commit(volumeId: string, baseVersion: number, manifestName: string, bytesSent: number): Promise<{ version: number | null; error: string }>;
}

/** A URL is used for at most half the 10 minutes it lives, so one taken from the book still has minutes left for its transfer. */
export const REUSE_MS = 5 * 60_000;
/** Names asked at once: enough to spare round trips, few enough that their URLs are used before REUSE_MS on a slow link (64 × 8 MiB). */
export const SIGN_BATCH = 64;
const ATTEMPTS = 4;
const RETRY_BASE_MS = 250;

interface Signed {
  signedMs: number;
  url: Promise<string>;
}

/** The URLs of one volume and method asked so far. */
export class PresignedUrls {
  readonly #signer: VolumeSigner;
  readonly #volumeId: string;
  readonly #method: "GET" | "PUT";
  readonly #now: () => number;
  readonly #urls = new Map<string, Signed>();

  constructor(signer: VolumeSigner, volumeId: string, method: "GET" | "PUT", now: () => number = Date.now) {
    this.#signer = signer;
    this.#volumeId = volumeId;
    this.#method = method;
    this.#now = now;
  }

  get method(): "GET" | "PUT" {
    return this.#method;
  }

  /** A fresh URL for `name`; when one must be asked, `upcoming` names lacking a fresh URL are asked with it. */
  url(name: string, upcoming: Iterable<string> = []): Promise<string> {
    if (this.#fresh(name)) return this.#urls.get(name)!.url;
    const batch = [name];
    for (const next of upcoming) {
      if (batch.length >= Math.min(SIGN_BATCH, MAX_SIGNED_NAMES)) break;
      if (next !== name && !this.#fresh(next) && !batch.includes(next)) batch.push(next);
    }
    const signedMs = this.#now();
    const signing = this.#signer.sign(this.#volumeId, this.#method, batch).then((urls) => {
      if (urls.length !== batch.length) throw new Error(`asked ${batch.length} URLs of ${this.#volumeId}, got ${urls.length}`);
      return urls;
    });
    batch.forEach((each, i) => {
      const signed = { signedMs, url: signing.then((urls) => urls[i]!) };
      // A failed signing is not kept: the next use of these names asks again.
      signed.url.catch(() => this.#urls.get(each) === signed && this.#urls.delete(each));
      this.#urls.set(each, signed);
    });
    return this.#urls.get(name)!.url;
  }

  forget(name: string): void {
    this.#urls.delete(name);
  }

  #fresh(name: string): boolean {
    const signed = this.#urls.get(name);
    return signed !== undefined && this.#now() - signed.signedMs < REUSE_MS;
  }
}

/**
 * One request for `name` over a URL of `urls` answered 2xx: a 403 asks for a new URL once, a failed
 * connection or a 5xx is tried again after a pause, anything else (or the last failure) throws.
 */
export async function transfer(urls: PresignedUrls, name: string, upcoming: Iterable<string>, body?: Uint8Array): Promise<Response> {
  let signedAgain = false;
  for (let attempt = 1; ; attempt++) {
    const url = await urls.url(name, upcoming);
    let response: Response;
    try {
      response = await fetch(url, { method: urls.method, body });
    } catch (error) {
      if (attempt >= ATTEMPTS) throw new Error(`${urls.method} ${name}: ${error instanceof Error ? error.message : String(error)}`);
      await sleep(RETRY_BASE_MS * 2 ** attempt);
      continue;
    }
    if (response.ok) return response;
    const detail = (await response.text().catch(() => "")).slice(0, 200);
    if (response.status === 403 && !signedAgain) {
      signedAgain = true;
      urls.forget(name);
      continue;
    }
    if (response.status >= 500 && attempt < ATTEMPTS) {
      await sleep(RETRY_BASE_MS * 2 ** attempt);
      continue;
    }
    throw new Error(`${urls.method} ${name}: storage answered ${response.status} ${detail}`.trim());
  }
}
