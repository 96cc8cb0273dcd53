// The account's instances, one row each: id (a link to its page), label, status, GPUs and their
// utilisation now, template and model, price per hour, creation.
import type { Instance } from "../../api/instances.ts";
import { DataTable } from "../../components/data-table.tsx";
import { StatusBadge } from "../../components/status-badge.tsx";
import { formatPerHour } from "../../format/money.ts";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";

export function InstanceTable({ instances }: { instances: Instance[] }) {
  return (
    <DataTable
      columns={["Instance", "Label", "Status", "GPUs", "GPU util", "Template", "Price", "Created"]}
      rows={instances}
      rowKey={(instance) => instance.id}
      rowTestId="instance-row"
    >
      {(instance) => (
        <>
          <td>
            <Link to={`/instances/${instance.id}`}>
              <code>{instance.id}</code>
            </Link>
          </td>
          <td>{instance.label}</td>
          <td>
            <StatusBadge status={instance.status} />
          </td>
          <td>
            {instance.gpu_count} × {instance.gpu_model}
          </td>
          <td data-testid="gpu-util">{instance.gpu_util_percent === null ? "–" : `${Math.round(instance.gpu_util_percent)} %`}</td>
          <td>{instance.model ? `${instance.template} · ${instance.model}` : instance.template}</td>
          <td>{formatPerHour(instance.price_hour_micros)}</td>
          <td>{formatTime(instance.created_at)}</td>
        </>
      )}
    </DataTable>
  );
}
