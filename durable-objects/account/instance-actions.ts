// Launch, start, stop, destroy and rename of one account's instances. The caller (AccountDO) runs
// each inside its serial queue; this module talks to FleetDO for placement and to MachineDO, the
// authority on GPUs, for reservations. A stop or destroy is answered once the host's MachineDO has
// it, so the proxy refuses the very next request.
import { fail, type Failure } from "../../core/errors.ts";
import { iso } from "../../core/clock.ts";
import { newInstanceId } from "../../core/ids.ts";
import type { ContainerSpec } from "../../protocol/messages.ts";
import type { Delivery } from "../outbox/outbox.ts";
import type { AccountContext } from "./account-context.ts";
import { settleAll, settleInstance } from "./billing.ts";
import { addEvent, findInstance, type Instance, type InstanceRow } from "./instance-row.ts";
import { currentKeySet } from "./key-set.ts";
import { launchTimeoutMs } from "./launch-timeout.ts";
import { NO_READINESS } from "./port-readiness.ts";
import type { Idempotency, LaunchPlan } from "../../core/launch-plan.ts";

export type InstanceResult = { ok: true; instance: Instance } | Failure;

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

export async function launch(ctx: AccountContext, plan: LaunchPlan, idem: Idempotency | null): Promise<InstanceResult> {
  const { sql, clock } = ctx;
  if (idem) {
    const [seen] = sql<{ body_hash: string; instance_id: string }>`
      SELECT body_hash, instance_id FROM idempotency WHERE key = ${idem.key} AND created_ms > ${clock.now() - IDEMPOTENCY_TTL_MS}`;
    if (seen) {
      if (seen.body_hash !== idem.bodyHash) return fail("conflict", "Idempotency-Key was already used with a different request body");
      const row = findInstance(sql, seen.instance_id);
      if (row) return { ok: true, instance: await ctx.show(row) };
    }
  }
  const balance = settleAll(sql, clock.now());
  if (balance < plan.price_hour_micros) {
    return fail("insufficient_funds", `balance_micros ${balance} does not cover one hour of this instance (price_hour_micros ${plan.price_hour_micros})`);
  }
  const placement = await ctx.env.FLEET.getByName("fleet").placementCandidates(plan);
  if (!placement.ok) return placement;
  for (const machineId of placement.machine_ids) {
    // The id names its machine (the proxy routes by it), so each candidate gets its own.
    const id = newInstanceId(machineId);
    const nowMs = clock.now();
    // The row exists (invisible, machine_id NULL) before any reservation, so a report racing the
    // launch finds it, and a crash mid-launch leaves nothing a MachineDO could keep forever. Its
    // token column stays empty: instance tokens are derived when needed (instanceTokenFor).
    sql`INSERT INTO instances (id, label, status, status_message, desired_state, gpu_model, gpu_count, template, model,
          image, disk_gb, ports, env, token, price_hour_micros, machine_id, machine_online, created_at, created_ms,
          started_at, destroyed_ms, generation, billed_until_ms, carry)
        VALUES (${id}, ${plan.label}, 'creating', '', 'running', ${plan.gpu_model}, ${plan.gpu_count}, ${plan.template},
          ${plan.model}, ${plan.image}, ${plan.disk_gb}, ${JSON.stringify(plan.ports)}, ${JSON.stringify(plan.env)}, '',
          ${plan.price_hour_micros}, NULL, 1, ${iso(nowMs)}, ${nowMs}, NULL, NULL, 1, NULL, 0)`;
    const reserved = await ctx.env.MACHINES.getByName(String(machineId)).reserve({
      account_id: ctx.accountId, instance_id: id, gpu_model: plan.gpu_model, gpu_count: plan.gpu_count, generation: 1,
      spec: containerSpec(id, plan), key_set: currentKeySet(sql, ctx.accountId),
    }).catch(() => ({ ok: false as const }));
    if (!reserved.ok) {
      sql`DELETE FROM instances WHERE id = ${id}`;
      continue;
    }
    ctx.transaction(() => {
      sql`UPDATE instances SET machine_id = ${machineId}, launch_deadline_ms = ${nowMs + launchTimeoutMs(ctx.env)} WHERE id = ${id}`;
      addEvent(sql, id, `Created on machine ${machineId}; waiting for the host to start the container`, iso(nowMs));
      if (idem) {
        sql`INSERT OR REPLACE INTO idempotency (key, body_hash, instance_id, created_ms)
            VALUES (${idem.key}, ${idem.bodyHash}, ${id}, ${nowMs})`;
      }
    });
    return { ok: true, instance: await ctx.show(findInstance(sql, id)!) };
  }
  return fail("no_capacity", `no machine has ${plan.gpu_count} free ${plan.gpu_model} GPU(s) right now`);
}

/** The container as the MachineDO stores it; it adds INSTANCE_TOKEN to the env when it sends the create. */
function containerSpec(id: string, plan: LaunchPlan): ContainerSpec {
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
  };
}

export async function stop(ctx: AccountContext, id: string, reason: string): Promise<InstanceResult> {
  const row = findInstance(ctx.sql, id);
  if (!row) return notFound(id);
  if (row.status === "stopped") return confirmAgain(ctx, row, `cannot stop an instance whose status is ${row.status}`);
  if (row.status !== "running" && row.status !== "starting" && row.status !== "creating") {
    return fail("conflict", `cannot stop an instance whose status is ${row.status}`);
  }
  const failure = await ctx.confirm([changeDesired(ctx, row, "stopped", reason)], pendingMessage("stopped"));
  return failure ?? { ok: true, instance: await ctx.show(findInstance(ctx.sql, id)!) };
}

export async function destroy(ctx: AccountContext, id: string): Promise<InstanceResult> {
  const row = findInstance(ctx.sql, id);
  if (!row) return notFound(id);
  if (row.status === "destroyed") return confirmAgain(ctx, row, "the instance is already destroyed");
  const delivery = changeDesired(ctx, row, "destroyed", "Destroyed; the host removes the container and its data");
  const failure = await ctx.confirm([delivery], pendingMessage("destroyed"));
  return failure ?? { ok: true, instance: await ctx.show(findInstance(ctx.sql, id)!) };
}

/**
 * A stop or destroy whose host did not acknowledge it in time answered 500 and asked for a retry: the
 * retry waits for that delivery again. Once the host has it, the instance is simply in that status.
 */
async function confirmAgain(ctx: AccountContext, row: InstanceRow, conflict: string): Promise<InstanceResult> {
  const pending = ctx.outbox.pending().filter((delivery) => delivery.destination === String(row.machine_id));
  if (pending.length === 0) return fail("conflict", conflict);
  const failure = await ctx.confirm(pending, pendingMessage(row.status));
  return failure ?? { ok: true, instance: await ctx.show(row) };
}

const pendingMessage = (status: string) =>
  `the instance is ${status}, but its host has not confirmed it yet; the change is being applied, retry the request to confirm it`;

/** Stop or destroy: billing and GPUs end now; the host follows through the outbox. */
function changeDesired(ctx: AccountContext, row: InstanceRow, desired: "stopped" | "destroyed", message: string): Delivery {
  const { sql, clock } = ctx;
  const nowMs = clock.now();
  return ctx.transaction(() => {
    settleInstance(sql, row, nowMs, false);
    const generation = row.generation + 1;
    sql`UPDATE instances SET status = ${desired}, desired_state = ${desired}, status_message = '',
          generation = ${generation}, destroyed_ms = ${desired === "destroyed" ? nowMs : null}, readiness = ${NO_READINESS}
        WHERE id = ${row.id}`;
    addEvent(sql, row.id, message, iso(nowMs));
    return ctx.outbox.enqueue(String(row.machine_id!), { instance_id: row.id, desired, generation });
  });
}

export async function start(ctx: AccountContext, id: string): Promise<InstanceResult> {
  const { sql, clock } = ctx;
  const row = findInstance(sql, id);
  if (!row) return notFound(id);
  if (row.status !== "stopped" && row.status !== "error") return fail("conflict", `cannot start an instance whose status is ${row.status}`);
  const balance = settleAll(sql, clock.now());
  if (balance < row.price_hour_micros) {
    return fail("insufficient_funds", `balance_micros ${balance} does not cover one hour of this instance (price_hour_micros ${row.price_hour_micros})`);
  }
  const generation = row.generation + 1;
  const reserved = await ctx.env.MACHINES.getByName(String(row.machine_id)).reserveForStart(id, row.gpu_count, generation);
  if (!reserved.ok) return reserved;
  const nowMs = clock.now();
  ctx.transaction(() => {
    sql`UPDATE instances SET status = 'starting', desired_state = 'running', status_message = '', generation = ${generation},
          launch_deadline_ms = ${nowMs + launchTimeoutMs(ctx.env)}
        WHERE id = ${id}`;
    addEvent(sql, id, "Start requested; waiting for the host to start the container", iso(nowMs));
  });
  return { ok: true, instance: await ctx.show(findInstance(sql, id)!) };
}

export async function rename(ctx: AccountContext, id: string, label: string): Promise<InstanceResult> {
  const row = findInstance(ctx.sql, id);
  if (!row) return notFound(id);
  ctx.transaction(() => {
    ctx.sql`UPDATE instances SET label = ${label} WHERE id = ${id}`;
    addEvent(ctx.sql, id, `Renamed to "${label}"`, iso(ctx.clock.now()));
  });
  return { ok: true, instance: await ctx.show(findInstance(ctx.sql, id)!) };
}

/** Stops every instance meant to run, because the balance is used up; what its hosts must acknowledge. */
export function stopForLackOfFunds(ctx: AccountContext): Delivery[] {
  const rows = ctx.sql<InstanceRow>`SELECT * FROM instances WHERE desired_state = 'running'
                                    AND status IN ('running', 'starting', 'creating') AND machine_id IS NOT NULL`;
  return rows.map((row) => changeDesired(ctx, row, "stopped", "Stopped: the account balance is used up"));
}

/** The message of a request whose balance-exhausted stop a host did not acknowledge in time. */
export const STOP_PENDING_MESSAGE = pendingMessage("stopped (the account balance is used up)");

const notFound = (id: string) => fail("not_found", `no instance ${id} in this account`);
