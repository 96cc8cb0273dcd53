// The Worker's ways into this machine's containers that carry a stream: the path proxy (HTTP and
// WebSockets of admitted callers), an instance's files (a tar, or a resumable upload's part) and its
// container's logs. Each checks the container's state here, then hands the stream to the bridge.
import { errorResponse } from "../../core/errors.ts";
import type { LogFields } from "../../core/log.ts";
import type { ContainerSpec } from "../../protocol/messages.ts";
import { decodeFilesRequest } from "../contracts/files-request.ts";
import { decodeLogsRequest } from "../contracts/logs-request.ts";
import type { Opener } from "../contracts/opener.ts";
import { decodeProxyRequest, PROXY_REFUSAL_HEADER, PROXY_REQUEST_HEADER, refusalResponse, type ProxyCredential } from "../contracts/proxy-request.ts";
import type { AppSessions } from "./app-sessions.ts";
import type { ContainerLedger } from "./container-ledger.ts";
import { MAX_REQUEST_BODY_BYTES } from "./http-stream.ts";
import type { MachineRecord } from "./machine-record.ts";
import type { ProxyAdmission } from "./proxy-admission.ts";
import type { ProxyBridge } from "./proxy-bridge.ts";
import { filesRefusal, hostOffline, runningRefusal } from "./reachability.ts";

export interface StreamEntryParts {
  record: MachineRecord;
  ledger: ContainerLedger;
  bridge: ProxyBridge;
  admission: ProxyAdmission;
  appSessions: AppSessions;
}

export class StreamEntries {
  private readonly parts: StreamEntryParts;

  constructor(parts: StreamEntryParts) {
    this.parts = parts;
  }

  // ---- the proxy ----

  async proxy(request: Request): Promise<Response> {
    const decoded = decodeProxyRequest(request.headers.get(PROXY_REQUEST_HEADER));
    if (!decoded.ok) return errorResponse("bad_request", decoded.reason);
    const target = decoded.request;
    const refusal = await this.parts.admission.admit(target, request.headers.get("content-length"));
    if (refusal) return refusalResponse(refusal, request.body);
    const logIds = () => ({ request_id: target.requestId, ...this.containerLogIds(target.instanceId), port: target.port });
    // Admitted, its container was here; a destroy may have removed it since (the admission awaits).
    const row = this.parts.ledger.containerForProxy(target.instanceId);
    if (!row) {
      const { code, message } = runningRefusal(target.instanceId, row)!;
      return refusalResponse({ kind: "refused", code, message }, request.body);
    }
    const opener = this.openerOf(target.credential);
    const ended = this.parts.bridge.credentials.refusal(row.account_id, opener);
    if (ended) return refusalResponse({ kind: "refused", code: "unauthorized", message: ended }, request.body);
    const owner = { instanceId: target.instanceId, accountId: row.account_id, opener };
    // An upstream's response goes with its headers as they came: the Worker builds the client's, and
    // stamps the request id on them and on the refusals made here.
    if (!target.websocket) return this.parts.bridge.openHttp(target, owner, request.body, logIds);
    const response = await this.parts.bridge.openWebSocket(target, owner, target.websocket.protocols, logIds, target.session);
    // Only this object refuses: an upstream header of that name would pass for a refusal.
    response.headers.delete(PROXY_REFUSAL_HEADER);
    response.headers.set("x-request-id", target.requestId);
    return response;
  }

  /** The key or session an admitted caller presented, or that opened its web app (null: an instance token). */
  private openerOf(credential: ProxyCredential): Opener | null {
    switch (credential.kind) {
      case "key":
        return { kind: "key", key_sha256: credential.key_sha256 };
      case "admitted_by_account":
        return credential.opener;
      case "app_session":
        return this.parts.appSessions.openerOf(credential.session_sha256);
      case "instance_token":
        return null;
    }
  }

  /** The ids of a log line about one of this machine's containers. */
  private containerLogIds(instanceId: string): LogFields {
    return { account_id: this.parts.ledger.container(instanceId)?.account_id, instance_id: instanceId, machine_id: this.parts.record.read()?.id };
  }

  // ---- files ----

  /** A tar of an instance's path, or a tar extracted into it, running or stopped (the caller's account has admitted it). */
  async files(request: Request): Promise<Response> {
    const decoded = decodeFilesRequest(new URL(request.url));
    if (!decoded.ok) return errorResponse("bad_request", decoded.reason);
    const { instanceId, requestId } = decoded.request;
    const row = this.parts.ledger.container(instanceId);
    const refusal = filesRefusal(instanceId, row, this.parts.record.isOnline());
    if (refusal) return refusalResponse({ kind: "refused", code: refusal.code, message: refusal.message }, request.body);
    if (Number(request.headers.get("content-length") ?? 0) > MAX_REQUEST_BODY_BYTES) {
      const what = decoded.request.upload ? "part" : "tar";
      return refusalResponse({ kind: "refused", code: "payload_too_large", message: `the ${what} is larger than ${MAX_REQUEST_BODY_BYTES} bytes (512 MB): send it in smaller parts` }, request.body);
    }
    const body = decoded.request.op === "put" ? request.body : null;
    // An upload stages at most the instance's disk on its host, counted as the engine's size limit counts
    // `G` (2^30). The spec is this object's: the authority for what the container was given.
    const uploadRoom = (JSON.parse(row!.spec) as ContainerSpec).disk_gb * 2 ** 30;
    return this.parts.bridge.openFiles(decoded.request, { instanceId, accountId: row!.account_id }, body, uploadRoom, () => ({ request_id: requestId || undefined, ...this.containerLogIds(instanceId) }));
  }

  // ---- container logs ----

  /** The container's logs from its host, while the host keeps them (a stopped container's too). */
  async logs(url: URL): Promise<Response> {
    const decoded = decodeLogsRequest(url);
    if (!decoded.ok) return errorResponse("bad_request", decoded.reason);
    const { instanceId } = decoded.request;
    const row = this.parts.ledger.container(instanceId);
    const noLogs = () => errorResponse("not_running", `the host has no logs for instance ${instanceId}`);
    // A container being destroyed takes its logs with it.
    if (!row || row.desired === "destroyed") return noLogs();
    const offline = this.parts.record.isOnline() ? null : hostOffline(instanceId);
    if (offline) return errorResponse(offline.code, offline.message);
    const { opener } = decoded.request;
    const ended = this.parts.bridge.credentials.refusal(row.account_id, opener);
    if (ended) return errorResponse("unauthorized", ended);
    const requestId = decoded.request.requestId || undefined;
    const owner = { instanceId, accountId: row.account_id, opener };
    const response = await this.parts.bridge.openLogs(decoded.request, owner, () => ({ request_id: requestId, ...this.containerLogIds(instanceId) }));
    if (response.status !== 404) return response;
    await response.body?.cancel();
    return noLogs();
  }
}
