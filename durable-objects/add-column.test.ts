// Columns added to tables of objects that exist already.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newAccount } from "../test/support/workerd/api-client.ts";
import { addColumnIfMissing } from "./add-column.ts";
import { sqlFor } from "./sql.ts";

describe("addColumnIfMissing", () => {
  it("adds a column once and then leaves it, keeping the rows", async () => {
    const { id } = await newAccount();
    const added = await runInDurableObject(env.ACCOUNTS.getByName(id), (_, state) => {
      const sql = sqlFor(state.storage);
      sql`CREATE TABLE probe (a TEXT)`;
      sql`INSERT INTO probe (a) VALUES ('x')`;
      const results = [addColumnIfMissing(sql, "probe", "b", "INTEGER NOT NULL DEFAULT 7"), addColumnIfMissing(sql, "probe", "b", "INTEGER NOT NULL DEFAULT 7")];
      return { results, rows: sql`SELECT a, b FROM probe` };
    });
    expect(added).toEqual({ results: [true, false], rows: [{ a: "x", b: 7 }] });
  });
});
