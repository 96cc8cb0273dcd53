// A table of records: a heading row of column headers, then one row per record, its cells rendered
// by the caller. A column of buttons, which name themselves, has a header for screen readers only.
import type { ReactNode } from "react";

/** A column's header: its text, or its text with a class for the header cell, or read to screen readers only. */
export type ColumnHeader = string | { text: string; className?: string; visuallyHidden?: true };

interface DataTableProps<Row> {
  columns: readonly ColumnHeader[];
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
  /** Every row's `data-testid`, how tests find the row of a record. */
  rowTestId: string;
  /** The cells (`<td>`s) of one row, one per column. */
  children: (row: Row) => ReactNode;
}

export function DataTable<Row>({ columns, rows, rowKey, rowTestId, children }: DataTableProps<Row>) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map((column) => {
            const { text, className, visuallyHidden } = typeof column === "string" ? { text: column } : column;
            return (
              <th key={text} scope="col" className={className}>
                {visuallyHidden ? <span className="visually-hidden">{text}</span> : text}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} data-testid={rowTestId}>
            {children(row)}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
