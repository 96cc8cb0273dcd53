// Instances as the account's callers see them: which rows are visible (a destroyed instance stays
// listed for DESTROYED_VISIBLE_MS), and the public instance object with its token. An instance's
// token is never stored: it is derived from INSTANCE_TOKEN_SECRET, the account and the instance. Its
// current GPU utilisation is the MachineDO's, asked when shown.
import { clock } from "../../../core/clock.ts";
import { instanceTokenFor, instanceTokens } from "../../../core/credentials.ts";
import { machineOf, type Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { constantTimeEqual } from "../../../core/hash.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import { DESTROYED_VISIBLE_MS } from "./expiry.ts";
import { findInstance, listEvents, listInstances, toInstance, type Instance, type InstanceRow } from "./instance-row.ts";

export type InstanceResult = { ok: true; instance: Instance } | Failure;

/** The answer for an instance the account does not have (or no longer shows). */
export const noInstance = (id: string): Failure => fail("not_found", `no instance ${id} in this account`);

export interface InstanceViewParts {
  sql: Sql;
  env: Env;
  record: AccountRecord;
}

export class InstanceViews {
  private readonly parts: InstanceViewParts;

  constructor(parts: InstanceViewParts) {
    this.parts = parts;
  }

  /** The instance `id` if the account's callers see it. */
  visible(id: string): InstanceRow | undefined {
    const row = findInstance(this.parts.sql, id);
    return row && this.isVisible(row) ? row : undefined;
  }

  /** What GET /v1/instances lists, newest first. */
  async list(): Promise<Instance[]> {
    const rows = listInstances(this.parts.sql).filter((row) => this.isVisible(row));
    const utils = await this.gpuUtils(rows);
    return Promise.all(rows.map(async (row) => toInstance(row, await this.tokenOf(row.id), utils.get(row.id) ?? null)));
  }

  /** The instance `id` as an answer, or 404. */
  async get(id: string): Promise<InstanceResult> {
    const row = this.visible(id);
    return row ? { ok: true, instance: await this.show(row) } : noInstance(id);
  }

  /** The events of instance `id`, newest first. */
  events(id: string): { message: string; created_at: string }[] {
    return listEvents(this.parts.sql, id);
  }

  async show(row: InstanceRow): Promise<Instance> {
    const utils = await this.gpuUtils([row]);
    return toInstance(row, await this.tokenOf(row.id), utils.get(row.id) ?? null);
  }

  /** Whether `credential` is the token of instance `id` (placed, visible or not), compared in constant time. */
  async isTokenOf(id: string, credential: string): Promise<boolean> {
    if (instanceTokens.ownerOf(credential) === null || findInstance(this.parts.sql, id) === undefined) return false;
    return constantTimeEqual(await this.tokenOf(id), credential);
  }

  /**
   * The current GPU utilisation of the running ones among `rows`, asked of their MachineDOs (the
   * authority on samples), one call per machine; a machine that does not answer leaves its own null.
   */
  private async gpuUtils(rows: InstanceRow[]): Promise<Map<string, number | null>> {
    const byMachine = new Map<number, string[]>();
    for (const row of rows) {
      if (row.status !== "running" || row.machine_id === null) continue;
      byMachine.set(row.machine_id, [...(byMachine.get(row.machine_id) ?? []), row.id]);
    }
    const answers = await Promise.all([...byMachine].map(([machineId, ids]) =>
      machineOf(this.parts.env, machineId).currentGpuUtil(ids).catch(() => ({}) as Record<string, number | null>)));
    return new Map(answers.flatMap((answer) => Object.entries(answer)));
  }

  private tokenOf(instanceId: string): Promise<string> {
    return instanceTokenFor(this.parts.env.INSTANCE_TOKEN_SECRET, this.parts.record.id(), instanceId);
  }

  private isVisible(row: InstanceRow): boolean {
    return row.destroyed_ms === null || row.destroyed_ms > clock.now() - DESTROYED_VISIBLE_MS;
  }
}
