// One access line per request the Worker answers: method, path (never the query, where secrets may
// ride), status, duration, request id, and the ids the request names: the account its credential
// names (key or instance token), the person a session names, the machine an agent token names, and the instance (and so
// its machine) its path or app host names. Never a credential. An unexpected error rides along.
import { agentTokens, apiKeys, bearerToken, instanceTokens, personSessionOwner } from "../core/credentials.ts";
import { machineIdOfInstance } from "../core/ids.ts";
import { errorText, log, writes, type LogFields, type LogLevel } from "../core/log.ts";
import { SESSION_COOKIE } from "./http/browser-session.ts";

/** Longer paths are cut: a client's path is not worth more of a log line. */
const MAX_PATH_CHARS = 512;
const INSTANCE_ID = /^i-[a-z2-7]{16}$/;
const ACCOUNT_ID = /^acc-[a-z2-7]{16}$/;
/** An instance web app's host: `{instance id}-{port}.{APPS_DOMAIN}`. */
const APP_HOST = /^(i-[a-z2-7]{16})-\d{1,5}\./;

export interface AccessRecord {
  request: Request;
  status: number;
  durationMs: number;
  requestId: string;
  /** The error behind an unplanned 500, logged with its stack. */
  unexpected?: unknown;
}

export function accessLine({ request, status, durationMs, requestId, unexpected }: AccessRecord): { level: LogLevel; fields: LogFields } {
  const level = accessLevel(status, unexpected);
  const url = new URL(request.url);
  const fields: LogFields = {
    request_id: requestId,
    ...idsNamedBy(request, url),
    method: request.method,
    path: url.pathname.slice(0, MAX_PATH_CHARS),
    status,
    duration_ms: durationMs,
  };
  if (unexpected !== undefined) return { level, fields: { ...fields, error: errorText(unexpected), stack: (unexpected as Error | null)?.stack } };
  return { level, fields };
}

export function logAccess(record: AccessRecord): void {
  // The line's ids are gathered only for a line that is written: this runs on every request.
  if (!writes(accessLevel(record.status, record.unexpected))) return;
  const { level, fields } = accessLine(record);
  log(level, "request", fields);
}

/** An unexpected error is an error; a deliberate 500 a warning; anything else info. */
function accessLevel(status: number, unexpected: unknown): LogLevel {
  if (unexpected !== undefined) return "error";
  return status === 500 ? "warn" : "info";
}

function idsNamedBy(request: Request, url: URL): LogFields {
  const ids: LogFields = {};
  const credential = bearerToken(request.headers.get("authorization")) ?? sessionCookie(request.headers.get("cookie"));
  if (credential !== null) {
    const accountId = apiKeys.ownerOf(credential) ?? instanceTokens.ownerOf(credential);
    const userId = personSessionOwner(credential);
    const machineId = agentTokens.ownerOf(credential);
    if (accountId !== null) ids.account_id = accountId;
    if (userId !== null) ids.user_id = userId;
    if (machineId !== null) ids.machine_id = machineId;
  }
  const segments = url.pathname.split("/");
  // /admin/v1/accounts/{id}/...: the account the operator acts on.
  if (segments[1] === "admin" && segments[3] === "accounts" && ACCOUNT_ID.test(segments[4] ?? "")) ids.account_id ??= segments[4];
  const instanceId = segments[1] === "v1" && segments[2] === "instances" ? segments[3] : APP_HOST.exec(url.hostname)?.[1];
  if (instanceId !== undefined && INSTANCE_ID.test(instanceId)) {
    ids.instance_id = instanceId;
    const machineId = machineIdOfInstance(instanceId);
    if (machineId !== null) ids.machine_id ??= machineId;
  }
  return ids;
}

function sessionCookie(header: string | null): string | null {
  if (header === null) return null;
  for (const pair of header.split(";")) {
    const [name, value] = pair.split("=", 2).map((part) => part.trim());
    if (name === SESSION_COOKIE && value) return value;
  }
  return null;
}
