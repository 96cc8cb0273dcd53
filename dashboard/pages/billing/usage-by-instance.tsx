// This month's usage per instance: its GPUs, how long it ran, what it cost.
import type { UsageItem } from "../../api/usage.ts";
import { DataTable } from "../../components/data-table.tsx";
import { formatDollars } from "../../format/money.ts";
import { Link } from "../../router/router.tsx";

/** 5400 → "1 h 30 min"; under a minute → "< 1 min". */
export function formatRunningTime(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes === 0) return "< 1 min";
  const hours = Math.floor(minutes / 60);
  return hours === 0 ? `${minutes} min` : `${hours} h ${minutes % 60} min`;
}

export function UsageByInstance({ items }: { items: UsageItem[] }) {
  return (
    <DataTable
      columns={["Instance", "GPUs", "Running time", { text: "Cost", className: "amount" }]}
      rows={items}
      rowKey={(item) => item.instance_id}
      rowTestId="usage-row"
    >
      {(item) => (
        <>
          <td>
            <Link to={`/instances/${item.instance_id}`}>{item.label || <code>{item.instance_id}</code>}</Link>
          </td>
          <td>
            {item.gpu_count} × {item.gpu_model}
          </td>
          <td>{formatRunningTime(item.seconds)}</td>
          <td className="amount">{formatDollars(item.amount_micros)}</td>
        </>
      )}
    </DataTable>
  );
}
