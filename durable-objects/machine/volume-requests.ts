// The volumes of this machine's containers, as their agent reaches them: presigned URLs only for a
// volume the spec of one of this machine's containers mounts (PUT only for a read-write mount), for
// as long as the host has not reported that container destroyed (the final save of a destroy comes
// before that report); its saves' commits and failures forwarded to the volume's account, the
// authority for the volume; and a save asked by the account sent to the agent as a command.
import { fail, type Failure } from "../../core/errors.ts";
import { randomBase32 } from "../../core/ids.ts";
import { errorText, log } from "../../core/log.ts";
import { accountOf, type Env } from "../../core/env.ts";
import { canSignVolumeUrls, signVolumeUrls, VOLUME_URL_SECONDS } from "../volume-urls.ts";
import { encodeMessage, type AgentMessage, type ContainerSpec, type ServerMessage } from "../../protocol/index.ts";
import type { AgentSocket } from "./agent-socket.ts";
import type { ContainerLedger, ContainerRow } from "./container-ledger.ts";
import { reachRefusal } from "./reachability.ts";

type VolumeMessage = Extract<AgentMessage, { type: "volume_sign" | "volume_commit" | "volume_save_failed" }>;

export interface VolumeRequestParts {
  env: Env;
  ledger: ContainerLedger;
  agent: AgentSocket;
  machineId: () => number | undefined;
  /** Whether the agent is connected now. */
  online: () => boolean;
}

export class VolumeRequests {
  private readonly parts: VolumeRequestParts;

  constructor(parts: VolumeRequestParts) {
    this.parts = parts;
  }

  /** One of the agent's volume messages, answered on the socket it came on. */
  async onMessage(ws: WebSocket, message: VolumeMessage): Promise<void> {
    switch (message.type) {
      case "volume_sign":
        return answer(ws, await this.sign(message));
      case "volume_commit":
        return answer(ws, await this.commit(message));
      case "volume_save_failed":
        return this.saveFailed(message);
    }
  }

  /** The account asks for a save of the instance's volumes now: only a running container on a host online can be saved from. */
  saveVolumes(instanceId: string): { ok: true } | Failure {
    const row = this.parts.ledger.container(instanceId);
    const refusal = reachRefusal(instanceId, row, this.parts.online());
    if (refusal) return refusal;
    const spec = JSON.parse(row!.spec) as ContainerSpec;
    if (!(spec.volumes ?? []).some((mount) => !mount.read_only)) return fail("conflict", `instance ${instanceId} has no read-write volume to save`);
    // No INSTANCE_TOKEN needed: a save creates nothing, so the spec goes as the agent last got it, less the token.
    this.parts.agent.send({ type: "command", command_id: `${instanceId}/${row!.generation}/save/${randomBase32(6)}`, op: "save", instance_id: instanceId, spec });
    return { ok: true };
  }

  private async sign(message: Extract<VolumeMessage, { type: "volume_sign" }>): Promise<ServerMessage> {
    const refused = (error: string): ServerMessage => ({ type: "volume_signed", request_id: message.request_id, urls: [], expires_s: 0, error });
    const found = this.mounting(message.instance_id, message.volume_id, message.method === "PUT");
    if (!found.ok) return refused(found.message);
    if (!canSignVolumeUrls(this.parts.env)) return refused("this platform has no R2 endpoint and key pair to sign volume URLs with");
    try {
      const urls = await signVolumeUrls(this.parts.env, found.row.account_id, message.volume_id, message.method, message.names);
      return { type: "volume_signed", request_id: message.request_id, urls, expires_s: VOLUME_URL_SECONDS, error: "" };
    } catch (error) {
      return refused(`volume URLs could not be signed: ${errorText(error)}`);
    }
  }

  private async commit(message: Extract<VolumeMessage, { type: "volume_commit" }>): Promise<ServerMessage> {
    const refused = (error: string): ServerMessage => ({ type: "volume_committed", request_id: message.request_id, version: null, error });
    const found = this.mounting(message.instance_id, message.volume_id, true);
    if (!found.ok) return refused(found.message);
    const { instance_id, volume_id, base_version, manifest, bytes_sent } = message;
    try {
      const result = await accountOf(this.parts.env, found.row.account_id).commitVolumeVersion({ volume_id, instance_id, base_version, manifest, bytes_sent });
      return result.ok ? { type: "volume_committed", request_id: message.request_id, version: result.version, error: "" } : refused(result.message);
    } catch (error) {
      this.logWarn("volume commit not forwarded", { instance_id, volume_id, error: errorText(error) });
      return refused("the volume's account could not be reached: try the save again");
    }
  }

  private async saveFailed(message: Extract<VolumeMessage, { type: "volume_save_failed" }>): Promise<void> {
    const { instance_id, volume_id, reason } = message;
    const found = this.mounting(instance_id, volume_id, false);
    if (!found.ok) return this.logWarn("volume save failure for a volume not mounted here: dropped", { instance_id, volume_id });
    try {
      await accountOf(this.parts.env, found.row.account_id).volumeSaveFailed({ instance_id, volume_id, reason });
    } catch (error) {
      this.logWarn("volume save failure not forwarded", { instance_id, volume_id, error: errorText(error) });
    }
  }

  /** The container of `instanceId` here, if its spec mounts `volumeId` and the agent may use it now (`write`: to change it). */
  private mounting(instanceId: string, volumeId: string, write: boolean): { ok: true; row: ContainerRow } | Failure {
    const row = this.parts.ledger.container(instanceId);
    // A container meant to be destroyed may still be saving its volumes; gone from the host, it is not.
    if (!row || (row.desired === "destroyed" && (row.actual === "destroyed" || row.actual === "absent"))) {
      return fail("forbidden", `instance ${instanceId} has no container on this machine`);
    }
    const mount = (JSON.parse(row.spec) as ContainerSpec).volumes?.find((candidate) => candidate.volume_id === volumeId);
    if (!mount) return fail("forbidden", `volume ${volumeId} is not mounted in instance ${instanceId}`);
    if (write && mount.read_only) return fail("forbidden", `volume ${volumeId} is mounted read-only in instance ${instanceId}: it cannot be written`);
    return { ok: true, row };
  }

  private logWarn(message: string, fields: Record<string, string>): void {
    log("warn", message, { machine_id: this.parts.machineId(), ...fields });
  }
}

/** To the socket the request came on: a replaced or closed one drops it, and its agent asks again after reconnecting. */
function answer(ws: WebSocket, message: ServerMessage): void {
  try {
    ws.send(encodeMessage(message));
  } catch {
    // Closed meanwhile: the agent's request fails with its connection.
  }
}
