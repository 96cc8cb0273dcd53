// One page of ledger entries: when, what, how much, the balance after, and the instance or volume charged.
import type { LedgerEntry } from "../../api/ledger.ts";
import { DataTable } from "../../components/data-table.tsx";
import { formatDollars, formatSignedDollars } from "../../format/money.ts";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";

export function LedgerTable({ entries }: { entries: LedgerEntry[] }) {
  return (
    <DataTable
      columns={["When", "Kind", { text: "Amount", className: "amount" }, { text: "Balance after", className: "amount" }, "For"]}
      rows={entries}
      rowKey={(entry) => entry.id}
      rowTestId="ledger-row"
    >
      {(entry) => (
        <>
          <td>{formatTime(entry.created_at)}</td>
          <td>{entry.pending ? `pending ${entry.kind}` : entry.kind}</td>
          {/* A charge can be under a cent: the exact amount is one hover away. */}
          <td className="amount" title={`${entry.amount_micros} micro-dollars`}>
            {formatSignedDollars(entry.amount_micros)}
          </td>
          <td className="amount">{formatDollars(entry.balance_after_micros)}</td>
          <td>
            {entry.instance_id && (
              <Link to={`/instances/${entry.instance_id}`}>
                <code>{entry.instance_id}</code>
              </Link>
            )}
            {entry.volume_id && (
              <Link to={`/volumes/${entry.volume_id}`}>
                <code>{entry.volume_id}</code>
              </Link>
            )}
            {(entry.instance_id || entry.volume_id) && entry.note ? " " : ""}
            {entry.note}
          </td>
        </>
      )}
    </DataTable>
  );
}
