// An AccountDO created before the outbox was shared: its typed desired-state rows become outbox messages.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { deliveredAfterUpgrade } from "../../test/support/workerd/legacy-outbox.ts";
import type { DesiredStateChange } from "../contracts/object-messages.ts";
import { upgradeLegacyOutbox } from "./schema.ts";

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
