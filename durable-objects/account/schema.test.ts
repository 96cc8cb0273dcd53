// An AccountDO of an older release upgrades in place: one created before the outbox was shared has its
// typed desired-state rows become outbox messages; one stored before sign-in, the ledger's running
// balance and port readiness existed gains them.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { admin, callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { deliveredAfterUpgrade } from "../../test/support/workerd/legacy-outbox.ts";
import type { DesiredStateChange } from "../contracts/object-messages.ts";
import { sqlFor } from "../sql.ts";
import { addAccountSchemaAdditions, upgradeLegacyOutbox } from "./schema.ts";

describe("account schema upgrade", () => {
  it("moves queued desired-state changes into the shared outbox, per machine and in order", async () => {
    const { delivered, tables } = await deliveredAfterUpgrade<DesiredStateChange>(env.ACCOUNTS.getByName("legacy-outbox"), {
      legacy: (sql) => {
        sql`CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, machine_id INTEGER NOT NULL, instance_id TEXT NOT NULL,
              desired TEXT NOT NULL, generation INTEGER NOT NULL, attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
        sql`INSERT INTO outbox (machine_id, instance_id, desired, generation, attempts, next_ms) VALUES (7, 'i-aaaaaaaaaaaaaaaa', 'stopped', 2, 3, 0)`;
        sql`INSERT INTO outbox (machine_id, instance_id, desired, generation, attempts, next_ms) VALUES (7, 'i-aaaaaaaaaaaaaaaa', 'destroyed', 3, 3, 0)`;
        sql`INSERT INTO outbox (machine_id, instance_id, desired, generation, attempts, next_ms) VALUES (9, 'i-bbbbbbbbbbbbbbbb', 'stopped', 5, 0, 0)`;
      },
      upgrade: upgradeLegacyOutbox,
    });
    expect(delivered.map(({ destination, batch }) => [destination, batch.map((q) => q.message)])).toEqual([
      ["7", [{ instance_id: "i-aaaaaaaaaaaaaaaa", desired: "stopped", generation: 2 }, { instance_id: "i-aaaaaaaaaaaaaaaa", desired: "destroyed", generation: 3 }]],
      ["9", [{ instance_id: "i-bbbbbbbbbbbbbbbb", desired: "stopped", generation: 5 }]],
    ]);
    expect(tables).not.toContain("outbox_legacy");
  });
});

describe("schema additions", () => {
  it("add the new columns and tables to an account of the first schema, backfilling each ledger row's balance after", async () => {
    const { id, key } = await newAccount(5_000_000);
    await admin("POST", `/accounts/${id}/credits`, { amount_micros: 2_000_000 });
    await admin("POST", `/accounts/${id}/credits`, { amount_micros: -500_000 });
    const upgraded = await runInDurableObject(env.ACCOUNTS.getByName(id), (_, state) => {
      const raw = state.storage.sql;
      // Back to the first release's shape.
      raw.exec("ALTER TABLE account DROP COLUMN email");
      raw.exec("ALTER TABLE ledger DROP COLUMN balance_after_micros");
      raw.exec("ALTER TABLE instances DROP COLUMN readiness");
      for (const table of ["password", "sessions", "abandoned_signup"]) raw.exec(`DROP TABLE ${table}`);

      const sql = sqlFor(state.storage);
      addAccountSchemaAdditions(sql);
      const after = sql`SELECT amount_micros, balance_after_micros FROM ledger ORDER BY seq`;
      addAccountSchemaAdditions(sql);
      const tables = sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('password', 'sessions', 'abandoned_signup') ORDER BY name`;
      const readiness = sql`SELECT dflt_value, "notnull" FROM pragma_table_info('instances') WHERE name = 'readiness'`;
      return { after, again: sql`SELECT amount_micros, balance_after_micros FROM ledger ORDER BY seq`, tables: tables.map((t) => t.name), readiness };
    });
    expect(upgraded.after).toEqual([
      { amount_micros: 5_000_000, balance_after_micros: 5_000_000 },
      { amount_micros: 2_000_000, balance_after_micros: 7_000_000 },
      { amount_micros: -500_000, balance_after_micros: 6_500_000 },
    ]);
    expect(upgraded.again).toEqual(upgraded.after);
    expect(upgraded.tables).toEqual(["abandoned_signup", "password", "sessions"]);
    expect(upgraded.readiness).toEqual([{ dflt_value: "'{}'", notnull: 1 }]);
    const me = await callJson("GET", "/v1/me", { key });
    expect(me.body).toMatchObject({ account: { id, email: null }, balance_micros: 6_500_000 });
  });
});

describe("hourly charge rows upgrade", () => {
  it("folds minute- and read-level charge rows into one row per instance and hour, keeping every sum and each hour's closing balance", async () => {
    const { id } = await newAccount(50_000_000);
    const hour = Date.parse("2026-11-20T12:00:00.000Z");
    const minute = 60_000;
    const folded = await runInDurableObject(env.ACCOUNTS.getByName(id), (_, state) => {
      const raw = state.storage.sql;
      // Back to the shape before hourly rows: the columns gone, charges one per settlement.
      raw.exec("DROP INDEX ledger_charges_by_time");
      raw.exec("DROP INDEX ledger_storage_by_time");
      // And before budgets, whose indexes and triggers read the span.
      for (const index of ["ledger_charges_by_key", "ledger_spend_by_time"]) raw.exec(`DROP INDEX ${index}`);
      for (const trigger of ["budget_charge_opened", "budget_charge_grown"]) raw.exec(`DROP TRIGGER ${trigger}`);
      for (const column of ["span_start_ms", "span_end_ms", "label", "gpu_model", "gpu_count"]) raw.exec(`ALTER TABLE ledger DROP COLUMN ${column}`);
      raw.exec("ALTER TABLE instances DROP COLUMN open_charge_seq");
      // One instance still known (price 400,000 an hour: about 6,667 a minute),
      // one forgotten; a credit between; rows ending on the hour belong to the hour before.
      raw.exec(`INSERT INTO instances (id, label, status, status_message, desired_state, gpu_model, gpu_count, template, model, image,
        disk_gb, ports, env, token, price_hour_micros, machine_id, machine_online, created_at, created_ms, generation, billed_until_ms, carry)
        VALUES ('i-known', 'trainer', 'running', '', 'running', 'rtx4090', 1, 'pytorch', '', 'img', 20, '[]', '{}', 't', 400000, 1, 1, '', 0, 1, ?, 0)`,
        hour + 2 * 3_600_000 - 20 * minute);
      let balance = 50_000_000;
      const charge = (instance: string, endMs: number, amount: number, note: string) => {
        balance -= amount;
        raw.exec("INSERT INTO ledger (kind, amount_micros, balance_after_micros, instance_id, note, created_at) VALUES ('charge', ?, ?, ?, ?, ?)",
          -amount, balance, instance, note, new Date(endMs).toISOString());
      };
      for (let m = 30; m <= 60; m += 1) charge("i-known", hour + m * minute, 6_666, `1 x rtx4090 until ${new Date(hour + m * minute).toISOString()}`);
      charge("i-gone", hour + 45 * minute, 1_234, "2 x h100 until x");
      balance += 1_000_000;
      raw.exec("INSERT INTO ledger (kind, amount_micros, balance_after_micros, note, created_at) VALUES ('credit', 1000000, ?, 'promo', ?)", balance, new Date(hour + 61 * minute).toISOString());
      for (let m = 61; m <= 100; m += 3) charge("i-known", hour + m * minute, 20_000, "1 x rtx4090 until y");
      raw.exec("UPDATE account SET balance_micros = ?", balance);
      const before = raw.exec<{ seq: number; kind: string; amount_micros: number; balance_after_micros: number; instance_id: string | null; created_at: string }>(
        "SELECT seq, kind, amount_micros, balance_after_micros, instance_id, created_at FROM ledger ORDER BY seq").toArray();

      const sql = sqlFor(state.storage);
      addAccountSchemaAdditions(sql);
      const after = sql<{ seq: number; kind: string; amount_micros: number; balance_after_micros: number; instance_id: string | null; note: string }>`
        SELECT seq, kind, amount_micros, balance_after_micros, instance_id, note FROM ledger ORDER BY seq`;
      addAccountSchemaAdditions(sql);
      const again = sql`SELECT seq, kind, amount_micros, balance_after_micros, instance_id, note FROM ledger ORDER BY seq`;
      const open = sql<{ open_charge_seq: number | null }>`SELECT open_charge_seq FROM instances WHERE id = 'i-known'`[0]!.open_charge_seq;
      return { before, after, again, open, balance: sql<{ b: number }>`SELECT balance_micros AS b FROM account`[0]!.b };
    });

    const { before, after } = folded;
    const legacyHour = (row: { instance_id: string | null; created_at: string }) => `${row.instance_id} ${Math.floor((Date.parse(row.created_at) - 1) / 3_600_000)}`;
    const groups = new Map<string, typeof before>();
    for (const row of before.filter((r) => r.kind === "charge")) groups.set(legacyHour(row), [...(groups.get(legacyHour(row)) ?? []), row]);
    // Opening credit, the 12:xx rows of each instance, the credit, the 13:xx rows.
    expect(after.map((r) => [r.kind, r.instance_id])).toEqual([
      ["credit", null], ["charge", "i-known"], ["charge", "i-gone"], ["credit", null], ["charge", "i-known"],
    ]);
    for (const group of groups.values()) {
      const row = after.find((r) => r.seq === group[0]!.seq)!;
      expect(row.amount_micros).toBe(group.reduce((sum, r) => sum + r.amount_micros, 0));
      expect(row.balance_after_micros).toBe(group.at(-1)!.balance_after_micros);
    }
    expect(after.reduce((sum, r) => sum + r.amount_micros, 0)).toBe(before.reduce((sum, r) => sum + r.amount_micros, 0));
    expect(after.reduce((sum, r) => sum + r.amount_micros, 0)).toBe(folded.balance);
    // 31 minutes' worth at 400,000 an hour is 12:29–13:00; the forgotten instance keeps its one settlement's time.
    expect(after.map((r) => r.note)).toEqual(["opening balance", "12:29–13:00 UTC, 1 × rtx4090", "12:45–12:45 UTC, 2 × h100", "promo", "13:00–13:40 UTC, 1 × rtx4090"]);
    expect(folded.again).toEqual(after);
    // Still accruing from its last settlement, in that hour: the next settlement grows the 13:xx row.
    expect(folded.open).toBe(after[4]!.seq);
  });
});
