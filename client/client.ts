// The typed API client (openapi-fetch over the generated types): every call resolves with the
// answer's data or throws GpuApiError; 429s are retried after Retry-After; every launch carries an
// Idempotency-Key. Works wherever fetch does: Node, and a browser with the session cookie.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { GpuApiError } from "./api-error.ts";
import type { paths } from "./api-types.ts";
import { DEFAULT_RETRY, retrying429, type Fetch, type RetryPolicy } from "./retry.ts";

export type GpuClient = Client<paths>;

export interface GpuClientOptions {
  /** The service's address, e.g. https://api.example.com (paths start with /v1). */
  baseUrl: string;
  /** An API key for `Authorization: Bearer`; leave out in a browser that has a session cookie. */
  apiKey?: string;
  /** The fetch to send through (globalThis.fetch by default). */
  fetch?: Fetch;
  retry?: Partial<RetryPolicy>;
  /** Browser cookie policy, e.g. "include" when the API is on another origin. */
  credentials?: RequestInit["credentials"];
}

export function createGpuClient(options: GpuClientOptions): GpuClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: retrying429(send, { ...DEFAULT_RETRY, ...options.retry }),
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  client.use(idempotentLaunches, errorsThrown);
  return client;
}

/** The data of a call; its error responses have already thrown GpuApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data } = await call;
  return data as T;
}

// One key per logical launch: added once here, above the retrying fetch, so every retry repeats it.
const idempotentLaunches: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.method === "POST" && schemaPath === "/v1/instances" && !request.headers.has("idempotency-key")) {
      request.headers.set("idempotency-key", newIdempotencyKey());
    }
  },
};

const errorsThrown: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await GpuApiError.fromResponse(response);
  },
};

/** 128 random bits; getRandomValues also works on plain-http pages, where randomUUID does not. */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `launch-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
