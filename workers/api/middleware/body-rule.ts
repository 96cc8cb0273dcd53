// The one body rule of the API, run for every request before the route's validators: a route that
// declares a JSON body (in its createRoute) gets, or refuses with 400 bad_request, a UTF-8 JSON
// object sent as application/json, at most 1 MiB (else 413). An optional body may be left out (or
// sent empty): that reads as `{}`. Routes without a declared body ignore one.
//
// Why one rule instead of each route's own: @hono/zod-openapi throws a bare 415 for a content type
// it does not take (and for a body without one), reads an optional body only when its content type
// is JSON, and decodes bodies leniently; every route had to remember a guard, and the ones that did
// not answered 500. This rule is found from the route's OpenAPI declaration, so a route added later
// gets it without asking.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";

export const MAX_BODY_BYTES = 1 << 20;

/**
 * What @hono/zod-openapi accepts as JSON (its media-type gate): anything it would refuse with 415
 * is refused here first, as 400.
 */
const JSON_CONTENT_TYPE = /^application\/([a-z.-]+\+)?json(;\s*[a-z0-9-]+=[^;]+)*$/i;
const JSON_MEDIA_TYPE = /^application\/([a-z.-]+\+)?json$/i;
const CHARSET = /;\s*charset=("?)([^;"]*)\1/i;
const FORBIDDEN_KEY = "__proto__";

interface DeclaredBody {
  required: boolean;
}

export function bodyRule(app: OpenAPIHono<ApiEnv>): MiddlewareHandler<ApiEnv> {
  let declared: Map<string, DeclaredBody> | null = null;
  return async function bodyRule(c, next) {
    declared ??= declaredBodies(app);
    const route = matchedRoutes(c).find((r) => r.method !== "ALL" && declared!.has(`${r.method} ${r.path}`));
    const body = route && declared.get(`${route.method} ${route.path}`);
    if (!body) return next();

    const contentType = c.req.header("content-type");
    if (contentType !== undefined) checkContentType(contentType);
    const bytes = await readBody(c.req.raw);
    if (bytes.byteLength === 0) {
      if (body.required) throw new ApiError("bad_request", "the request body is required: a JSON object, with Content-Type: application/json");
      // The route's validator reads a body whenever the content type is JSON: it reads `{}`.
      setBodyText(c, contentType === undefined ? "" : "{}");
      return next();
    }
    if (contentType === undefined) throw new ApiError("bad_request", "the request body must be JSON, with Content-Type: application/json");
    const text = decodeUtf8(bytes);
    const value = parseJsonObject(text);
    const forbidden = pathOfKey(value, FORBIDDEN_KEY);
    if (forbidden !== null) throw new ApiError("invalid", `${forbidden}: not allowed as a field name`);
    setBodyText(c, text);
    await next();
  };
}

/**
 * "POST /v1/keys/:id" → the route's declared JSON body, for every route in the OpenAPI registry (all
 * but one declared with `hide: true`). A body of another media type is the route's own business.
 */
function declaredBodies(app: OpenAPIHono<ApiEnv>): Map<string, DeclaredBody> {
  const bodies = new Map<string, DeclaredBody>();
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route") continue;
    const { method, path, request } = definition.route;
    if (!request?.body || !Object.keys(request.body.content).some((type) => JSON_MEDIA_TYPE.test(type))) continue;
    bodies.set(`${method.toUpperCase()} ${path.replaceAll(/\/{(.+?)}/g, "/:$1")}`, { required: request.body.required === true });
  }
  return bodies;
}

function checkContentType(contentType: string): void {
  if (!JSON_CONTENT_TYPE.test(contentType.trim())) {
    throw new ApiError("bad_request", `Content-Type ${JSON.stringify(contentType)} is not accepted: send application/json`);
  }
  const charset = CHARSET.exec(contentType)?.[2]?.toLowerCase();
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    throw new ApiError("bad_request", `charset ${charset} is not accepted: JSON bodies are UTF-8`);
  }
}

/** The whole body, refusing past MAX_BODY_BYTES without reading further (a declared length is refused unread). */
async function readBody(request: Request): Promise<Uint8Array> {
  const tooLarge = () => new ApiError("payload_too_large", `the request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)`);
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError("bad_request", "the request body is not valid UTF-8");
  }
}

function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("bad_request", "the request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError("bad_request", "the request body must be a JSON object");
  return value as Record<string, unknown>;
}

/**
 * Where `key` is an own key anywhere in `value` ("env.__proto__"), or null. Walked without
 * recursion: a body may be nested thousands deep.
 */
function pathOfKey(value: unknown, key: string): string | null {
  const pending: [unknown, string][] = [[value, ""]];
  while (pending.length > 0) {
    const [node, path] = pending.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (!Array.isArray(node) && Object.hasOwn(node, key)) return path ? `${path}.${key}` : key;
    for (const [name, child] of Object.entries(node)) pending.push([child, path ? `${path}.${name}` : name]);
  }
  return null;
}

/**
 * Hands the body this rule read to the route's validator: its c.req.json() reads Hono's body cache,
 * which holds each reading as a promise (its declared type says the value), instead of the spent stream.
 */
function setBodyText(c: Context<ApiEnv>, text: string): void {
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
}
