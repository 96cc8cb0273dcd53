// A MachineDO created before the outbox was shared: its reports table becomes the outbox in place.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { deliveredAfterUpgrade } from "../../test/support/workerd/legacy-outbox.ts";
import type { MachineReportBody } from "../contracts/object-messages.ts";
import { upgradeLegacyReports } from "./schema.ts";

const report: MachineReportBody = { kind: "event", instance_id: "i-aaaaaaaaaaaaaaaa", message: "queued before", at: 1 };

describe("machine schema upgrade", () => {
  it("keeps queued reports and continues their seq, which AccountDOs dedupe on", async () => {
    const { delivered, tables } = await deliveredAfterUpgrade<MachineReportBody>(env.MACHINES.getByName("legacy-reports"), {
      legacy: (sql) => {
        sql`CREATE TABLE reports (seq INTEGER PRIMARY KEY AUTOINCREMENT, account_id TEXT NOT NULL, report TEXT NOT NULL,
              attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
        for (let i = 0; i < 5; i++) sql`INSERT INTO reports (account_id, report, attempts, next_ms) VALUES ('acct', ${JSON.stringify(report)}, 2, 0)`;
        sql`DELETE FROM reports WHERE seq <> 3`;
      },
      upgrade: upgradeLegacyReports,
      then: (outbox) => outbox.enqueue("acct", { ...report, message: "queued after" }),
    });
    expect(delivered.flatMap(({ batch }) => batch)).toEqual([{ seq: 3, message: report }, { seq: 6, message: { ...report, message: "queued after" } }]);
    expect(tables).not.toContain("reports");
  });
});
