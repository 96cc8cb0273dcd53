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
