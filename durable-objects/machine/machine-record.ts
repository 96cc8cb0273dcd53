// The machine itself in MachineDO storage: its row (identity, agent token hash, online, current agent
// connection, state and fleet versions) and, as its agent's last hello said, its GPUs, cached models,
// memory and CPUs, and disk; and the volume versions its agent last said it holds.
import { sha256Hex } from "../../core/hash.ts";
import type { GpuInfo, HeldVolume, HostDisk } from "../../protocol/index.ts";
import { resourceShare, type HostResources, type ResourceShare } from "../../protocol/resource-share.ts";
import type { HostVersions } from "../contracts/fleet.ts";
import type { Sql } from "../sql.ts";

export interface MachineRow {
  id: number;
  name: string;
  token_hash: string;
  online: number;
  /** Set at the hello and when going offline; heartbeats in between live in the runtime (liveness.ts). */
  last_seen_ms: number | null;
  connection: string | null;
  /** Increases with every change FleetDO's index shows (online, GPUs, reservations, cache). */
  state_version: number;
  /** The last state_version FleetDO acknowledged. */
  fleet_version: number;
}

export class MachineRecord {
  private readonly sql: Sql;
  /**
   * `online` mirrored for the proxy, which asks on every request: filled by isOnlineForProxy (the proxy
   * runs in no transaction, so it mirrors committed state) and forgotten by every write of the flag
   * (also one a failed transaction rolls back).
   */
  private onlineMirror: boolean | undefined = undefined;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  async initialize(id: number, name: string, agentToken: string): Promise<void> {
    const hash = await sha256Hex(agentToken);
    this.onlineMirror = undefined;
    this.sql`INSERT OR REPLACE INTO machine (id, name, token_hash, online, last_seen_ms, connection, state_version, fleet_version)
             VALUES (${id}, ${name}, ${hash}, 0, NULL, NULL, 1, 0)`;
  }

  /** A new agent token: only its hash is kept, and the old one is refused from now on. */
  async replaceToken(agentToken: string): Promise<void> {
    this.sql`UPDATE machine SET token_hash = ${await sha256Hex(agentToken)}`;
  }

  /** The machine is retired: no token opens it any more (its agent's connect is 401). */
  forget(): void {
    this.onlineMirror = undefined;
    this.sql`DELETE FROM machine`;
  }

  read(): MachineRow | undefined {
    return this.sql<MachineRow>`SELECT id, name, token_hash, online, last_seen_ms, connection, state_version, fleet_version FROM machine`[0];
  }

  isOnline(): boolean {
    return this.read()?.online === 1;
  }

  /** isOnline without a storage read after the first: only for callers outside any transaction (the proxy's). */
  isOnlineForProxy(): boolean {
    return (this.onlineMirror ??= this.isOnline());
  }

  markOnline(lastSeenMs: number): void {
    this.onlineMirror = undefined;
    this.sql`UPDATE machine SET online = 1, last_seen_ms = ${lastSeenMs}`;
  }

  markOffline(lastSeenMs: number | null): void {
    this.onlineMirror = undefined;
    this.sql`UPDATE machine SET online = 0, connection = NULL, last_seen_ms = ${lastSeenMs}`;
  }

  markSeen(lastSeenMs: number): void {
    this.sql`UPDATE machine SET last_seen_ms = ${lastSeenMs}`;
  }

  setConnection(connection: string): void {
    this.sql`UPDATE machine SET connection = ${connection}`;
  }

  bumpState(): void {
    this.sql`UPDATE machine SET state_version = state_version + 1`;
  }

  markFleetVersion(version: number): void {
    this.sql`UPDATE machine SET fleet_version = MAX(fleet_version, ${version})`;
  }

  replaceGpus(gpus: GpuInfo[]): void {
    this.sql`DELETE FROM gpus`;
    for (const gpu of gpus) {
      this.sql`INSERT INTO gpus (idx, model, name, uuid, vram_mb) VALUES (${gpu.index}, ${gpu.model}, ${gpu.name}, ${gpu.uuid}, ${gpu.vram_mb})`;
    }
  }

  replaceCache(models: string[]): void {
    this.sql`DELETE FROM cached_models`;
    for (const hf of new Set(models)) this.sql`INSERT INTO cached_models (hf) VALUES (${hf})`;
  }

  replaceHeldVolumes(volumes: HeldVolume[]): void {
    this.sql`DELETE FROM held_volumes`;
    for (const { volume_id, version } of volumes) this.sql`INSERT OR REPLACE INTO held_volumes (volume_id, version) VALUES (${volume_id}, ${version})`;
  }

  heldVolumes(): HeldVolume[] {
    return this.sql<HeldVolume>`SELECT volume_id, version FROM held_volumes ORDER BY volume_id`;
  }

  gpus(): { idx: number; model: string; name: string }[] {
    return this.sql<{ idx: number; model: string; name: string }>`SELECT idx, model, name FROM gpus ORDER BY idx`;
  }

  replaceVersions(versions: HostVersions): void {
    this.sql`INSERT OR REPLACE INTO host_versions (id, agent_version, driver_version, cuda_version)
             VALUES (1, ${versions.agent_version}, ${versions.driver_version}, ${versions.cuda_version})`;
  }

  /** Keeps the SSH host key the hello gave; true when it differs from the one kept before. */
  replaceSshHostKey(hostKey: string | undefined): boolean {
    if (hostKey === undefined || hostKey === this.sshHostKey()) return false;
    this.sql`INSERT OR REPLACE INTO host_ssh (id, host_key) VALUES (1, ${hostKey})`;
    return true;
  }

  /** The public key line of the agent's SSH server; null before an agent with one said hello. */
  sshHostKey(): string | null {
    return this.sql<{ host_key: string }>`SELECT host_key FROM host_ssh`[0]?.host_key ?? null;
  }

  /** What the agent's last hello said it runs; empty before the first hello. */
  versions(): HostVersions {
    return this.sql<HostVersions>`SELECT agent_version, driver_version, cuda_version FROM host_versions`[0]
      ?? { agent_version: "", driver_version: "", cuda_version: "" };
  }

  replaceResources(host: HostResources): void {
    this.sql`INSERT OR REPLACE INTO host_resources (id, memory_bytes, cpus) VALUES (1, ${host.memory_bytes}, ${host.cpus})`;
  }

  /**
   * What an instance of `gpuCount` GPUs gets of this host's memory and CPUs (the agent sets the same
   * limits, by the same rule); null until an agent has said what the host has.
   */
  shareFor(gpuCount: number): ResourceShare | null {
    const host = this.sql<HostResources>`SELECT memory_bytes, cpus FROM host_resources`[0];
    return host ? resourceShare(host, this.gpus().length, gpuCount) : null;
  }

  /** The disk the hello said instances' disks live on; a hello that says none (an older agent) leaves it unknown. */
  replaceDisk(disk: HostDisk | undefined): void {
    this.sql`DELETE FROM host_disk`;
    if (disk) this.sql`INSERT INTO host_disk (id, total_bytes, free_bytes) VALUES (1, ${disk.total_bytes}, ${disk.free_bytes})`;
  }

  /** Null until an agent that says its disk has said hello. */
  disk(): HostDisk | null {
    return this.sql<HostDisk>`SELECT total_bytes, free_bytes FROM host_disk`[0] ?? null;
  }

  cachedModels(): string[] {
    return this.sql<{ hf: string }>`SELECT hf FROM cached_models ORDER BY hf`.map((r) => r.hf);
  }
}
