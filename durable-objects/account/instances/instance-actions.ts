// Launch, start, stop, destroy, rename and idle stop of one account's instances. The AccountDO runs
// each inside its serial queue (the idle stop, on its alarm); this part talks to FleetDO for placement
// and to MachineDO, the authority on GPUs, for reservations. A stop or destroy is answered once the host's MachineDO has it, so the proxy
// refuses the very next request.
import { clock, iso } from "../../../core/clock.ts";
import { fleetOf, machineOf, type Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { newInstanceId } from "../../../core/ids.ts";
import type { Idempotency, LaunchPlan } from "../../../core/launch-plan.ts";
import type { ContainerSpec } from "../../../protocol/messages.ts";
import type { VolumeMount } from "../../../protocol/volumes.ts";
import type { Delivery } from "../../outbox/outbox.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import { settleAll, settleInstance } from "../money/billing.ts";
import { frozenRefusal } from "../money/account-freeze.ts";
import { budgetRefusal, keyIdOf, type BudgetStop } from "../money/budgets.ts";
import type { Caller } from "../credentials/credential-check.ts";
import { IDEMPOTENCY_TTL_MS } from "./expiry.ts";
import { gpuLimitRefusal } from "./gpu-limit.ts";
import { addEvent, findInstance, type InstanceRow } from "./instance-row.ts";
import { noInstance, type InstanceResult, type InstanceViews } from "./instance-views.ts";
import { currentKeySet } from "../credentials/key-set.ts";
import { launchTimeoutMs } from "./launch-timeout.ts";
import type { MachineDirectives } from "../machine-directives.ts";
import { NO_READINESS } from "./port-readiness.ts";
import { attachmentRefusal, attachVolumes, latestVersions, mountsNow } from "../volumes/attachments.ts";
import { recordWebhookEvent } from "../webhooks/webhook-events.ts";
import { SYSTEM, actingAs } from "../audit/actors.ts";
import { recordAudit } from "../audit/audit-log.ts";

/** What the instance actions work with: the account's storage, its bindings, and the parts they use. */
export interface InstanceParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  directives: MachineDirectives;
  views: InstanceViews;
}

export class InstanceActions {
  private readonly parts: InstanceParts;

  constructor(parts: InstanceParts) {
    this.parts = parts;
  }

  /** `caller`'s launch: an API key's is recorded on the instance, whose spend counts against the key's monthly limit (budgets.ts). */
  async launch(plan: LaunchPlan, idem: Idempotency | null, caller: Caller): Promise<InstanceResult> {
    const { sql, env, views } = this.parts;
    const keyId = keyIdOf(sql, caller);
    if (idem) {
      const [seen] = sql<{ body_hash: string; instance_id: string }>`
        SELECT body_hash, instance_id FROM idempotency WHERE key = ${idem.key} AND created_ms > ${clock.now() - IDEMPOTENCY_TTL_MS}`;
      if (seen) {
        if (seen.body_hash !== idem.bodyHash) return fail("conflict", "Idempotency-Key was already used with a different request body");
        const row = findInstance(sql, seen.instance_id);
        if (row) return { ok: true, instance: await views.show(row) };
      }
    }
    const refused = frozenRefusal(sql) ?? this.shortOfOneHour(plan.price_hour_micros) ?? budgetRefusal(sql, env, [keyId], clock.now())
      ?? gpuLimitRefusal(sql, env, plan.gpu_count) ?? attachmentRefusal(sql, plan.volumes);
    if (refused) return refused;
    const placement = await fleetOf(env).placementCandidates({ ...plan, volume_versions: latestVersions(sql, plan.volumes) });
    if (!placement.ok) return placement;
    for (const machineId of placement.machine_ids) {
      // The id names its machine (the proxy routes by it), so each candidate gets its own.
      const id = newInstanceId(machineId);
      const nowMs = clock.now();
      // The row exists (invisible, machine_id NULL) before any reservation, so a report racing the
      // launch finds it, and a crash mid-launch leaves nothing a MachineDO could keep forever. Its
      // token column stays empty: instance tokens are derived when needed (instanceTokenFor). Its volumes
      // are attached with it, checked again here: a volume taken meanwhile refuses the launch.
      const attached = this.parts.transaction(() => {
        const taken = attachmentRefusal(sql, plan.volumes);
        if (taken) return taken;
        sql`INSERT INTO instances (id, label, status, status_message, desired_state, gpu_model, gpu_count, template, model,
              image, disk_gb, ports, env, token, price_hour_micros, machine_id, machine_online, created_at, created_ms,
              started_at, destroyed_ms, generation, billed_until_ms, carry, idle_stop_minutes, idle_from_ms, launched_by_key)
            VALUES (${id}, ${plan.label}, 'creating', '', 'running', ${plan.gpu_model}, ${plan.gpu_count}, ${plan.template},
              ${plan.model}, ${plan.image}, ${plan.disk_gb}, ${JSON.stringify(plan.ports)}, ${JSON.stringify(plan.env)}, '',
              ${plan.price_hour_micros}, NULL, 1, ${iso(nowMs)}, ${nowMs}, NULL, NULL, 1, NULL, 0, ${plan.idle_stop_minutes}, ${nowMs}, ${keyId})`;
        return attachVolumes(sql, id, plan.volumes);
      });
      if (!attached.ok) return attached;
      const reserved = await machineOf(env, machineId).reserve({
        account_id: this.parts.record.id(), instance_id: id, gpu_model: plan.gpu_model, gpu_count: plan.gpu_count, generation: 1,
        spec: containerSpec(id, plan, attached.mounts), key_set: currentKeySet(sql, this.parts.record.id()),
      }).catch(() => ({ ok: false as const }));
      if (!reserved.ok) {
        // Its volumes' attachments go with the row (volumes/schema.ts).
        sql`DELETE FROM instances WHERE id = ${id}`;
        continue;
      }
      this.parts.transaction(() => {
        const share = reserved.share;
        sql`UPDATE instances SET machine_id = ${machineId}, launch_deadline_ms = ${nowMs + launchTimeoutMs(env)},
              memory_mib = ${share ? share.memory_bytes / 1024 ** 2 : null}, milli_cpus = ${share ? Math.floor(share.nano_cpus / 1_000_000) : null},
              ssh_host_key = ${reserved.ssh_host_key ?? null}
            WHERE id = ${id}`;
        addEvent(sql, id, `Created on machine ${machineId}; waiting for the host to start the container`, iso(nowMs));
        recordAudit(sql, { action: "instance.launch", target: { type: "instance", id }, detail: `"${plan.label}": ${plan.gpu_count} × ${plan.gpu_model}, ${plan.template}` });
        if (idem) {
          sql`INSERT OR REPLACE INTO idempotency (key, body_hash, instance_id, created_ms)
              VALUES (${idem.key}, ${idem.bodyHash}, ${id}, ${nowMs})`;
        }
      });
      return this.shown(id);
    }
    return fail("no_capacity", `no machine has ${plan.gpu_count} free ${plan.gpu_model} GPU(s) right now`);
  }

  async stop(id: string): Promise<InstanceResult> {
    const row = findInstance(this.parts.sql, id);
    if (!row) return noInstance(id);
    if (row.status === "stopped") return this.confirmAgain(row, `cannot stop an instance whose status is ${row.status}`);
    if (row.status !== "running" && row.status !== "starting" && row.status !== "creating") {
      return fail("conflict", `cannot stop an instance whose status is ${row.status}`);
    }
    const delivery = this.changeDesired(row, "stopped", "Stop requested; GPUs released and billing stopped");
    return (await this.parts.directives.confirm([delivery], pendingMessage("stopped"))) ?? this.shown(id);
  }

  async destroy(id: string): Promise<InstanceResult> {
    const row = findInstance(this.parts.sql, id);
    if (!row) return noInstance(id);
    if (row.status === "destroyed") return this.confirmAgain(row, "the instance is already destroyed");
    const delivery = this.changeDesired(row, "destroyed", "Destroyed; the host removes the container and its data");
    return (await this.parts.directives.confirm([delivery], pendingMessage("destroyed"))) ?? this.shown(id);
  }

  /** A start by `caller`: refused past the account's budget, the calling key's limit or the limit of the key that launched it. */
  async start(id: string, caller: Caller): Promise<InstanceResult> {
    const { sql, env } = this.parts;
    const row = findInstance(sql, id);
    if (!row) return noInstance(id);
    if (row.status !== "stopped" && row.status !== "error") return fail("conflict", `cannot start an instance whose status is ${row.status}`);
    const refused = frozenRefusal(sql) ?? this.shortOfOneHour(row.price_hour_micros)
      ?? budgetRefusal(sql, env, [keyIdOf(sql, caller), row.launched_by_key], clock.now()) ?? gpuLimitRefusal(sql, env, row.gpu_count);
    if (refused) return refused;
    const generation = row.generation + 1;
    // Its volumes as they are now: a read-only one restored at the latest version, a grown one saved up to its new size.
    const reserved = await machineOf(env, row.machine_id!).reserveForStart(id, row.gpu_count, generation, mountsNow(sql, id));
    if (!reserved.ok) return reserved.code === "gpus_busy" && row.volumes !== "[]" ? withVolumesElsewhere(reserved) : reserved;
    const nowMs = clock.now();
    this.parts.transaction(() => {
      sql`UPDATE instances SET status = 'starting', desired_state = 'running', status_message = '', generation = ${generation},
            launch_deadline_ms = ${nowMs + launchTimeoutMs(env)}
          WHERE id = ${id}`;
      addEvent(sql, id, "Start requested; waiting for the host to start the container", iso(nowMs));
      recordAudit(sql, { action: "instance.start", target: { type: "instance", id }, detail: `"${row.label}"` });
    });
    return this.shown(id);
  }

  /** PATCH: a new label, a new idle stop (its idle time counts from now), or both. */
  async update(id: string, changes: InstanceChanges): Promise<InstanceResult> {
    const { sql } = this.parts;
    if (!findInstance(sql, id)) return noInstance(id);
    const nowMs = clock.now();
    this.parts.transaction(() => {
      if (changes.label !== undefined) {
        sql`UPDATE instances SET label = ${changes.label} WHERE id = ${id}`;
        addEvent(sql, id, `Renamed to "${changes.label}"`, iso(nowMs));
        recordAudit(sql, { action: "instance.update", target: { type: "instance", id }, detail: `renamed to "${changes.label}"` });
      }
      if (changes.idle_stop_minutes !== undefined) {
        const minutes = changes.idle_stop_minutes;
        sql`UPDATE instances SET idle_stop_minutes = ${minutes}, idle_from_ms = ${nowMs}, idle_check_ms = NULL WHERE id = ${id}`;
        addEvent(sql, id, minutes === null ? "Idle stop turned off" : `Idle stop set: stopped after ${minutes} min idle`, iso(nowMs));
        recordAudit(sql, { action: "instance.update", target: { type: "instance", id }, detail: minutes === null ? "idle stop off" : `idle stop after ${minutes} min` });
      }
    });
    return this.shown(id);
  }

  /**
   * Inside a transaction: stops an instance its idle stop found idle for `minutes` (idle-stop.ts), the
   * way a caller's stop does (billing ends, GPUs released, data kept); what its host must acknowledge.
   */
  stopIdle(row: InstanceRow, minutes: number): Delivery {
    return actingAs(SYSTEM, () => this.changeDesired(row, "stopped", `Stopped after ${minutes} min idle; GPUs released and billing stopped`, idleStopMessage(minutes)));
  }

  /** Inside a transaction: stops every instance meant to run, because the balance is used up; what its hosts must acknowledge. */
  stopForLackOfFunds(): Delivery[] {
    const rows = this.parts.sql<InstanceRow>`SELECT * FROM instances WHERE desired_state = 'running'
                                             AND status IN ('running', 'starting', 'creating') AND machine_id IS NOT NULL`;
    return rows.map((row) => {
      recordWebhookEvent(this.parts.sql, "instance.stopped_for_funds", { instance_id: row.id }, clock.now());
      return actingAs(SYSTEM, () => this.changeDesired(row, "stopped", "Stopped: the account balance is used up"));
    });
  }

  /** Inside a transaction: stops the instances a reached budget stops (money/budgets.ts); what their hosts must acknowledge. */
  stopForBudget(stops: BudgetStop[]): Delivery[] {
    return stops.map(({ row, reason, keyId }) => {
      recordWebhookEvent(this.parts.sql, "instance.stopped_for_budget", { instance_id: row.id, budget: keyId === null ? "account" : "key", key_id: keyId }, clock.now());
      return actingAs(SYSTEM, () => this.changeDesired(row, "stopped", `Stopped: ${reason}; GPUs released, volumes kept`, `stopped: ${reason}`));
    });
  }

  /** 402 unless the balance, settled up to now, covers one hour at `priceHourMicros`. */
  private shortOfOneHour(priceHourMicros: number): Failure | null {
    const balance = settleAll(this.parts.sql, clock.now());
    if (balance >= priceHourMicros) return null;
    return fail("insufficient_funds", `balance_micros ${balance} does not cover one hour of this instance (price_hour_micros ${priceHourMicros})`);
  }

  /**
   * A stop or destroy whose host did not acknowledge it in time answered 500 and asked for a retry: the
   * retry waits for that delivery again. Once the host has it, the instance is simply in that status.
   */
  private async confirmAgain(row: InstanceRow, conflict: string): Promise<InstanceResult> {
    const { directives } = this.parts;
    const pending = directives.pending().filter((delivery) => delivery.destination === String(row.machine_id));
    if (pending.length === 0) return fail("conflict", conflict);
    return (await directives.confirm(pending, pendingMessage(row.status))) ?? { ok: true, instance: await this.parts.views.show(row) };
  }

  /** Stop or destroy: billing and GPUs end now; the host follows through the outbox. `statusMessage`: why, when not the caller's doing. */
  private changeDesired(row: InstanceRow, desired: "stopped" | "destroyed", message: string, statusMessage = ""): Delivery {
    const { sql } = this.parts;
    const nowMs = clock.now();
    return this.parts.transaction(() => {
      settleInstance(sql, row, nowMs, false);
      const generation = row.generation + 1;
      sql`UPDATE instances SET status = ${desired}, desired_state = ${desired}, status_message = ${statusMessage},
            generation = ${generation}, destroyed_ms = ${desired === "destroyed" ? nowMs : null}, readiness = ${NO_READINESS}
          WHERE id = ${row.id}`;
      addEvent(sql, row.id, message, iso(nowMs));
      recordAudit(sql, { action: desired === "stopped" ? "instance.stop" : "instance.destroy", target: { type: "instance", id: row.id }, detail: `"${row.label}": ${message}` });
      return this.parts.directives.enqueue(String(row.machine_id!), { instance_id: row.id, desired, generation });
    });
  }

  private async shown(id: string): Promise<InstanceResult> {
    return { ok: true, instance: await this.parts.views.show(findInstance(this.parts.sql, id)!) };
  }
}

/** A start refused for its host's GPUs, of an instance whose data is in volumes: they can go to another host. */
const withVolumesElsewhere = (refusal: Failure): Failure => ({
  ...refusal,
  message: `${refusal.message}; its volumes hold its data: destroy it (its host saves them first) and launch again with the same volumes to run elsewhere`,
});

/** The container as the MachineDO stores it; it adds INSTANCE_TOKEN to the env when it sends the create. */
function containerSpec(id: string, plan: LaunchPlan, volumes: VolumeMount[]): ContainerSpec {
  return {
    instance_id: id,
    image: plan.image,
    template: plan.template,
    model: plan.model_hf,
    env: {
      ...plan.env,
      ...(plan.model_hf ? { MODEL_ID: plan.model_hf } : {}),
      PROXY_BASE_PATH: `/v1/instances/${id}/proxy`,
    },
    command: plan.command,
    ports: plan.ports.map((p) => p.port),
    http_ports: plan.ports.filter((p) => p.kind === "http").map(({ port, path }) => ({ port, path })),
    gpu_indices: [],
    disk_gb: plan.disk_gb,
    ...(volumes.length > 0 ? { volumes } : {}),
  };
}

/** What a label and idle stop change (PATCH); a field left out is kept. */
export interface InstanceChanges {
  label?: string;
  idle_stop_minutes?: number | null;
}

/** The status_message of an instance the idle stop stopped. */
export const idleStopMessage = (minutes: number) => `stopped after ${minutes} min idle`;

const pendingMessage = (status: string) =>
  `the instance is ${status}, but its host has not confirmed it yet; the change is being applied, retry the request to confirm it`;

/** The message of a request whose stop for a used-up balance or a reached budget a host did not acknowledge in time. */
export const STOP_PENDING_MESSAGE = pendingMessage("stopped (the account balance is used up, or a budget is reached)");
