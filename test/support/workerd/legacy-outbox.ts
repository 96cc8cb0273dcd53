// An object made before the outbox was shared, for the schema upgrade tests: its outbox table replaced
// by the table it had then, the upgrade run, and what the shared outbox delivers afterwards.
import { runInDurableObject } from "cloudflare:test";
import { Outbox, type Queued } from "../../../durable-objects/outbox/outbox.ts";
import { sqlFor, type Sql } from "../../../durable-objects/sql.ts";

export interface LegacyUpgrade<Message> {
  /** Creates and fills the legacy table (the object's own outbox table is dropped first). */
  legacy(sql: Sql): void;
  /** The upgrade under test: run twice, since every constructor runs it. */
  upgrade(sql: Sql): void;
  /** Queues more after the upgrade, before the delivery. */
  then?(outbox: Outbox<Message>): void;
}

export interface AfterUpgrade<Message> {
  /** Each destination's batch, as the shared outbox delivered them. */
  delivered: { destination: string; batch: Queued<Message>[] }[];
  /** The object's tables afterwards. */
  tables: string[];
}

export function deliveredAfterUpgrade<Message>(stub: DurableObjectStub, steps: LegacyUpgrade<Message>): Promise<AfterUpgrade<Message>> {
  return runInDurableObject(stub, async (_, state) => {
    const sql = sqlFor(state.storage);
    sql`DROP TABLE outbox`;
    steps.legacy(sql);
    steps.upgrade(sql);
    steps.upgrade(sql);
    const delivered: AfterUpgrade<Message>["delivered"] = [];
    const outbox = new Outbox<Message>(sql, { name: "upgraded", now: () => 10, send: async (destination, batch) => void delivered.push({ destination, batch }) });
    steps.then?.(outbox);
    await outbox.deliver();
    return { delivered, tables: sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.map((t) => t.name) };
  });
}
