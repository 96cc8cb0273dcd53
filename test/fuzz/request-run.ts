// Turns a request plan into a real Request, sends it through the Worker entry (the same fetch
// handler production runs: rate limit, request id, proxy, API), and keeps the fixture's
// credentials alive for the next request.
import { exports } from "cloudflare:workers";
import { ADMIN_TOKEN, BASE } from "../support/workerd/api-client.ts";
import { renewKey, renewSession, type FuzzFixture } from "./fuzz-fixture.ts";
import type { Operation } from "./openapi-operations.ts";
import { pathFixtureValue } from "./path-fixtures.ts";
import type { BodyPlan, CredentialPlan, RequestPlan } from "./request-plan.ts";

export interface SentRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: BodyPlan | null;
  /** Whether every part of the request was valid (the fixture's credential, fixture path values, a valid body). */
  valid: boolean;
  /** Whether a path parameter was broken (so the path may name no route at all). */
  brokenPath: boolean;
}

/** A hang is a failure too: no answer within this long is reported with the request. */
const HANG_MS = 20_000;
const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export async function buildRequest(fixture: FuzzFixture, operation: Operation, plan: RequestPlan): Promise<SentRequest> {
  let path = operation.path;
  for (const [name, param] of Object.entries(plan.path)) {
    const text = param.kind === "fixture" ? await pathFixtureValue(fixture, operation, name) : param.encode ? encodeURIComponent(param.text) : param.text;
    path = path.replace(`{${name}}`, text);
  }
  const query = plan.query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&");
  const headers: [string, string][] = [["cf-connecting-ip", "10.0.0.1"], ...credentialHeaders(fixture, operation, plan.credential), ...plan.headers];
  if (plan.body?.contentType) headers.push(["content-type", plan.body.contentType]);
  const validPath = Object.values(plan.path).every((param) => param.kind === "fixture" || param.valid);
  return {
    method: operation.method,
    url: `${BASE}${path}${query ? `?${query}` : ""}`,
    headers,
    body: plan.body,
    brokenPath: !validPath,
    valid: validCredential(operation, plan.credential) && validPath && (operation.body === null || plan.body?.label === "valid" || (plan.body === null && !operation.body.required)),
  };
}

function validCredential(operation: Operation, credential: CredentialPlan): boolean {
  if (operation.security.length === 0) return true;
  if (credential.kind !== "valid" || !operation.security.includes(credential.scheme)) return false;
  return credential.scheme !== "sessionCookie" || credential.origin === "own" || !UNSAFE_METHODS.has(operation.method);
}

export async function send(sent: SentRequest): Promise<Response> {
  const request = new Request(sent.url, { method: sent.method, headers: sent.headers, body: sent.body ? bodyBytes(sent.body) : undefined });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS / 1000} s`)), HANG_MS);
  });
  try {
    return await Promise.race([exports.default.fetch(request), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** After a 401 to the fixture's own key or session where it should have worked, the next request gets a fresh one. */
export async function healCredentials(fixture: FuzzFixture, operation: Operation, plan: RequestPlan, status: number): Promise<void> {
  if (status !== 401 || plan.credential.kind !== "valid" || !operation.security.includes(plan.credential.scheme)) return;
  if (plan.credential.scheme === "sessionCookie") await renewSession(fixture);
  if (plan.credential.scheme === "bearerAuth") await renewKey(fixture);
}

function credentialHeaders(fixture: FuzzFixture, operation: Operation, credential: CredentialPlan): [string, string][] {
  if (credential.kind === "none") return [];
  if (credential.kind === "raw") {
    return [
      ...(credential.authorization !== undefined ? [["authorization", credential.authorization] as [string, string]] : []),
      ...(credential.cookie !== undefined ? [["cookie", credential.cookie] as [string, string]] : []),
    ];
  }
  switch (credential.scheme) {
    case "bearerAuth": return [["authorization", `Bearer ${fixture.key}`]];
    case "instanceToken": return [["authorization", `Bearer ${fixture.instanceToken}`]];
    case "adminAuth": return [["authorization", `Bearer ${ADMIN_TOKEN}`]];
    case "sessionCookie": {
      const origin = credential.origin === "own" ? BASE : credential.origin === "foreign" ? "https://evil.example" : null;
      const withOrigin: [string, string][] = origin !== null && UNSAFE_METHODS.has(operation.method) ? [["origin", origin]] : [];
      return [["cookie", `gpr_session=${fixture.session}`], ...withOrigin];
    }
    default: throw new Error(`${operation.key}: security scheme ${credential.scheme} is new to the fuzz test; teach credentialHeaders its credential`);
  }
}

function bodyBytes(body: BodyPlan): Uint8Array {
  const parts = body.chunks.map((chunk) => (typeof chunk === "string" ? new TextEncoder().encode(chunk) : Uint8Array.from(chunk)));
  const bytes = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
