// This month's storage per volume, apart from the instances: how long its bytes were kept, what it cost.
import type { StorageUsageItem } from "../../api/usage.ts";
import { DataTable } from "../../components/data-table.tsx";
import { formatDollars } from "../../format/money.ts";
import { Link } from "../../router/router.tsx";
import { formatRunningTime } from "./usage-by-instance.tsx";

export function UsageByVolume({ items }: { items: StorageUsageItem[] }) {
  return (
    <DataTable
      columns={["Volume", "Stored for", { text: "Cost", className: "amount" }]}
      rows={items}
      rowKey={(item) => item.volume_id}
      rowTestId="storage-usage-row"
    >
      {(item) => (
        <>
          <td>
            <Link to={`/volumes/${item.volume_id}`}>{item.name}</Link>
          </td>
          <td>{formatRunningTime(item.seconds)}</td>
          <td className="amount">{formatDollars(item.amount_micros)}</td>
        </>
      )}
    </DataTable>
  );
}
