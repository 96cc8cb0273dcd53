// Keeps FleetDO's index of this machine current (online, degraded, GPUs, free GPUs, disk, cached models, volume versions held). Each push
// carries the machine's state version, so FleetDO ignores one that arrives late; a failed push is
// retried by the alarm a second later until FleetDO has the latest version.
import { iso } from "../../core/clock.ts";
import { errorText, log } from "../../core/log.ts";
import { fleetOf, type Env } from "../../core/env.ts";
import type { AlarmCapability } from "../outbox/single-alarm.ts";
import type { ContainerLedger } from "./container-ledger.ts";
import type { MachineHealth } from "./host-health.ts";
import type { Liveness } from "./liveness.ts";
import type { MachineRecord } from "./machine-record.ts";

const RETRY_MS = 1000;

export class FleetPush implements AlarmCapability {
  private readonly env: Env;
  private readonly record: MachineRecord;
  private readonly ledger: ContainerLedger;
  private readonly liveness: Liveness;
  private readonly health: MachineHealth;

  constructor(env: Env, record: MachineRecord, ledger: ContainerLedger, liveness: Liveness, health: MachineHealth) {
    this.env = env;
    this.record = record;
    this.ledger = ledger;
    this.liveness = liveness;
    this.health = health;
  }

  nextAlarmMs(nowMs: number): number | null {
    const machine = this.record.read();
    return machine && machine.fleet_version < machine.state_version ? nowMs + RETRY_MS : null;
  }

  onAlarm(): Promise<void> {
    return this.push();
  }

  onChange(): Promise<void> {
    return this.push();
  }

  private async push(): Promise<void> {
    const machine = this.record.read();
    if (!machine || machine.fleet_version >= machine.state_version) return;
    const gpus = this.record.gpus();
    const reserved = this.ledger.reservedGpuIndices();
    const lastSeenMs = this.liveness.lastSeenMs();
    try {
      await fleetOf(this.env).reportMachine(machine.id, {
        ...this.record.versions(),
        version: machine.state_version,
        online: machine.online === 1,
        degraded: this.health.degraded(),
        last_seen_at: lastSeenMs === null ? null : iso(lastSeenMs),
        gpus: gpus.map((g) => ({ model: g.model, index: g.idx, name: g.name })),
        free_indices: gpus.filter((g) => !reserved.has(g.idx)).map((g) => g.idx),
        cached_models: this.record.cachedModels(),
        held_volumes: this.record.heldVolumes(),
        disk: this.ledger.disk(),
      });
      this.record.markFleetVersion(machine.state_version);
    } catch (error) {
      log("warn", "fleet index update failed; will retry", { machine_id: machine.id, error: errorText(error) });
    }
  }
}
