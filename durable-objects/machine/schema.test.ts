// A MachineDO created before the outbox was shared: its reports table becomes the outbox in place.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { MachineReportBody } from "../object-messages.ts";
import { Outbox, type Queued } from "../outbox/outbox.ts";
import { sqlFor } from "../sql.ts";
import { upgradeLegacyReports } from "./schema.ts";

describe("machine schema upgrade", () => {
  it("keeps queued reports and continues their seq, which AccountDOs dedupe on", () =>
    runInDurableObject(env.MACHINES.getByName("legacy-reports"), async (_, state) => {
      const sql = sqlFor(state.storage);
      sql`DROP TABLE outbox`;
      sql`CREATE TABLE reports (seq INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, report TEXT NOT NULL,
            attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
      const report: MachineReportBody = { kind: "event", instance_id: "i-aaaaaaaaaaaaaaaa", message: "queued before", at: 1 };
      for (let i = 0; i < 5; i++) sql`INSERT INTO reports (account_id, report, attempts, next_ms) VALUES ('acct', ${JSON.stringify(report)}, 2, 0)`;
      sql`DELETE FROM reports WHERE seq <> 3`;

      upgradeLegacyReports(sql);
      upgradeLegacyReports(sql);

      const sent: Queued<MachineReportBody>[] = [];
      const outbox = new Outbox<MachineReportBody>(sql, { name: "report", now: () => 10, send: async (_, batch) => void sent.push(...batch) });
      outbox.enqueue("acct", { ...report, message: "queued after" });
      await outbox.deliver();
      expect(sent).toEqual([{ seq: 3, message: report }, { seq: 6, message: { ...report, message: "queued after" } }]);
      expect(sql`SELECT name FROM sqlite_master WHERE name = 'reports'`).toEqual([]);
    }));
});
