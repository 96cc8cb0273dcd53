// The one value the Worker hands the MachineDO for a proxied exchange: where it goes, the credential
// the caller presented, the upstream headers already computed, the request id and, for a WebSocket,
// the offered subprotocols; and the one answer the MachineDO gives when it does not open the stream.
// The request rides the MachineDO `fetch` as one header, not an RPC argument, because Workers RPC can
// carry the request body stream in and a streamed Response out, but cannot return a 101 Response
// holding a WebSocket (workerd: "Could not serialize object of type WebSocket"); so the exchange stays
// a fetch, and both values are encoded and schema-checked by the functions below, nowhere else.
import { z } from "zod";
import { STATUS_OF, type ErrorCode } from "../../core/errors.ts";
import { asciiJson } from "../../protocol/ascii-json.ts";
import { isFields, isHeaderList, isInt, isStrings } from "../../protocol/json-shapes.ts";
import { openerByHand, openerSchema, SHA256_HEX, type Opener } from "./opener.ts";

/** Where a proxied exchange goes, and what it asks there. */
export interface ProxyTarget {
  instanceId: string;
  port: number;
  /** Path and query exactly as the client sent them. */
  target: string;
  method: string;
  /** The upstream request headers, computed once by the Worker (protocol/mux/headers.ts). */
  headers: [string, string][];
}

export const PROXY_REQUEST_HEADER = "x-gpr-proxy-request";

/** The caller's credential as the MachineDO checks it (machine/proxy-admission.ts). */
export type ProxyCredential =
  /** An API key, by its SHA-256 only. */
  | { kind: "key"; key_sha256: string }
  /** An instance token, itself: the MachineDO derives the expected one and compares. */
  | { kind: "instance_token"; token: string }
  /**
   * The slow path's second hop: the account (AccountDO.openProxy) has admitted the caller, and says
   * who it was, so revoking that credential ends what it opens (null: an instance token).
   */
  | { kind: "admitted_by_account"; opener: Opener | null }
  /** An instance web app's session (the `gpr_app` cookie of its origin), by its SHA-256 only (machine/app-sessions.ts). */
  | { kind: "app_session"; session_sha256: string };

export interface ProxyRequest extends ProxyTarget {
  credential: ProxyCredential;
  requestId: string;
  /** The subprotocols a WebSocket client offered; null for plain HTTP. */
  websocket: { protocols: string[] } | null;
  /** A WebSocket the agent ends itself, not a container port: its SSH server, or a terminal's shell. */
  session?: AgentSession;
}

/**
 * `ssh`: the agent's SSH server takes the connection, and these keys (each with its id on the account,
 * which the agent names when one authenticates) may authenticate it;
 * `terminal`: a login shell in the container on a terminal of that size (the dashboard's).
 */
export type AgentSession =
  | { kind: "ssh"; keys: { id: string; type: string; blob: string }[] }
  | { kind: "terminal"; cols: number; rows: number };

export const proxyRequest: z.ZodType<ProxyRequest> = z.object({
  instanceId: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  target: z.string().startsWith("/"),
  method: z.string().min(1),
  headers: z.array(z.tuple([z.string(), z.string()])),
  credential: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("key"), key_sha256: z.string().regex(SHA256_HEX) }),
    z.object({ kind: z.literal("instance_token"), token: z.string() }),
    z.object({ kind: z.literal("admitted_by_account"), opener: openerSchema.nullable() }),
    z.object({ kind: z.literal("app_session"), session_sha256: z.string().regex(SHA256_HEX) }),
  ]),
  requestId: z.string(),
  websocket: z.object({ protocols: z.array(z.string()) }).nullable(),
  session: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("ssh"), keys: z.array(z.object({ id: z.string(), type: z.string(), blob: z.string() })) }),
    z.object({ kind: z.literal("terminal"), cols: z.number().int(), rows: z.number().int() }),
  ]).optional(),
});

/**
 * The MachineDO `fetch` that carries `exchange` (to `MACHINE_PROXY_URL`): the exchange in its header,
 * the body streamed, its declared length, and for a WebSocket the upgrade workerd needs before it
 * passes a WebSocket back. `redirect: "manual"`: an upstream's redirect is the client's to follow;
 * followed here, the stub would send it to the MachineDO itself (Jupyter's `/` to `/tree` became a
 * 404 "no such machine endpoint").
 */
export function machineProxyInit(exchange: ProxyRequest, body: ReadableStream<Uint8Array> | null, declaredLength: string | null): RequestInit {
  const headers = new Headers({ [PROXY_REQUEST_HEADER]: encodeProxyRequest(exchange) });
  if (exchange.websocket) headers.set("upgrade", "websocket");
  if (declaredLength !== null && body) headers.set("content-length", declaredLength);
  return { method: exchange.method, headers, body, redirect: "manual" };
}

export const MACHINE_PROXY_URL = "https://machine/proxy";

/** The header value: JSON with every non-ASCII character escaped, so any header value survives. */
export function encodeProxyRequest(request: ProxyRequest): string {
  return asciiJson(request);
}

export function decodeProxyRequest(value: string | null): { ok: true; request: ProxyRequest } | { ok: false; reason: string } {
  if (value === null) return { ok: false, reason: `${PROXY_REQUEST_HEADER} is missing` };
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return { ok: false, reason: `${PROXY_REQUEST_HEADER} is not JSON` };
  }
  const fast = proxyRequestByHand(raw);
  if (fast !== undefined) return { ok: true, request: fast };
  const parsed = proxyRequest.safeParse(raw);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `${PROXY_REQUEST_HEADER} rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}

/*
 * The header checked by hand: every proxied request passes here, and zod's safeParse of it was a
 * fifth of the MachineDO's CPU for a small proxied request. It accepts only what `proxyRequest`
 * accepts and returns what zod would (unknown fields dropped), which proxy-request.test.ts checks
 * against the schema; anything it does not accept goes to zod, which accepts it or says what is wrong.
 */
function proxyRequestByHand(raw: unknown): ProxyRequest | undefined {
  if (!isFields(raw)) return undefined;
  const { instanceId, port, target, method, headers, requestId, websocket } = raw;
  if (typeof instanceId !== "string" || instanceId.length === 0 || !isInt(port) || port < 1 || port > 65535) return undefined;
  if (typeof target !== "string" || !target.startsWith("/") || typeof method !== "string" || method.length === 0) return undefined;
  if (!isHeaderList(headers) || typeof requestId !== "string") return undefined;
  if (websocket !== null && !(isFields(websocket) && isStrings(websocket.protocols))) return undefined;
  const credential = credentialByHand(raw.credential);
  if (credential === undefined) return undefined;
  const session = raw.session === undefined ? undefined : sessionByHand(raw.session);
  if (raw.session !== undefined && session === undefined) return undefined;
  return {
    instanceId, port, target, method, headers: headers.map(([name, value]) => [name, value] as [string, string]), credential, requestId,
    websocket: websocket === null ? null : { protocols: [...(websocket.protocols as string[])] },
    ...(session === undefined ? {} : { session }),
  };
}

function credentialByHand(raw: unknown): ProxyCredential | undefined {
  if (!isFields(raw)) return undefined;
  const { kind } = raw;
  switch (kind) {
    case "key":
      return typeof raw.key_sha256 === "string" && SHA256_HEX.test(raw.key_sha256) ? { kind, key_sha256: raw.key_sha256 } : undefined;
    case "instance_token":
      return typeof raw.token === "string" ? { kind, token: raw.token } : undefined;
    case "admitted_by_account": {
      if (raw.opener === null) return { kind, opener: null };
      const opener = openerByHand(raw.opener);
      return opener === undefined ? undefined : { kind, opener };
    }
    case "app_session":
      return typeof raw.session_sha256 === "string" && SHA256_HEX.test(raw.session_sha256) ? { kind, session_sha256: raw.session_sha256 } : undefined;
    default:
      return undefined;
  }
}

function sessionByHand(raw: unknown): AgentSession | undefined {
  if (!isFields(raw)) return undefined;
  const { kind, keys, cols, rows } = raw;
  if (kind === "terminal") return isInt(cols) && isInt(rows) ? { kind, cols, rows } : undefined;
  if (kind !== "ssh" || !Array.isArray(keys)) return undefined;
  const checked: { id: string; type: string; blob: string }[] = [];
  for (const key of keys) {
    if (!isFields(key) || typeof key.id !== "string" || typeof key.type !== "string" || typeof key.blob !== "string") return undefined;
    checked.push({ id: key.id, type: key.type, blob: key.blob });
  }
  return { kind, keys: checked };
}

/**
 * Why the MachineDO did not open the stream: a verdict the client gets as it is, or `ask_account`
 * when only the credential's AccountDO can judge (a key not in the instance's account's set, an
 * instance this machine does not know) and the Worker takes the slow path.
 */
export type ProxyRefusal = { kind: "ask_account" } | { kind: "refused"; code: ErrorCode; message: string };

export const PROXY_REFUSAL_HEADER = "x-gpr-proxy-refusal";

const proxyRefusal: z.ZodType<ProxyRefusal> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ask_account") }),
  z.object({ kind: z.literal("refused"), code: z.enum(Object.keys(STATUS_OF) as [ErrorCode, ...ErrorCode[]]), message: z.string() }),
]);

/**
 * The refusal, its body the request body handed back unread: the Worker passes that on to the slow
 * path's hop or cancels it (so the client is answered without sending the rest).
 */
export function refusalResponse(refusal: ProxyRefusal, requestBody: ReadableStream<Uint8Array> | null): Response {
  const status = refusal.kind === "refused" ? STATUS_OF[refusal.code] : STATUS_OF.unauthorized;
  return new Response(requestBody, { status, headers: { [PROXY_REFUSAL_HEADER]: asciiJson(refusal) } });
}

/** The refusal a MachineDO answered, or null when it opened the stream. (It strips the header from upstream responses.) */
export function refusalOf(response: Response): ProxyRefusal | null {
  const value = response.headers.get(PROXY_REFUSAL_HEADER);
  if (value === null) return null;
  try {
    const parsed = proxyRefusal.safeParse(JSON.parse(value));
    if (parsed.success) return parsed.data;
  } catch {
    // Reported below as what it is: a broken answer.
  }
  return { kind: "refused", code: "internal", message: `the host's object answered an unreadable ${PROXY_REFUSAL_HEADER}` };
}
