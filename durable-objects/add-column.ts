// Adds a column to an existing SQLite table unless it is there: objects created before the column
// existed upgrade in place when their constructor runs (CREATE TABLE IF NOT EXISTS never changes
// a table that already exists).
import type { Sql } from "./sql.ts";

/** Adds `column` with `definition` (e.g. "TEXT", "INTEGER NOT NULL DEFAULT 0"); true when it was added now. */
export function addColumnIfMissing(sql: Sql, table: string, column: string, definition: string): boolean {
  const columns = sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`;
  if (columns.some((c) => c.name === column)) return false;
  // Identifiers cannot be bound parameters; these come from our own schema code, never from input.
  sql([`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`] as unknown as TemplateStringsArray);
  return true;
}
