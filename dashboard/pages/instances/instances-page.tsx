// /instances: every instance of the account, newest first (destroyed ones stay listed for 7 days).
import { useInstances } from "../../api/instances.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { StatusBadge } from "../../components/status-badge.tsx";
import { formatPerHour } from "../../format/money.ts";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";

export function InstancesPage() {
  const instances = useInstances();
  return (
    <section>
      <PageTitle title="Instances" />
      <p>
        <Link to="/launch" className="button primary">
          Launch an instance
        </Link>
      </p>
      {instances.isPending && <Loading what="instances" />}
      {instances.isError && <LoadError what="instances" error={instances.error} />}
      {instances.data?.length === 0 && <p className="empty">No instances yet.</p>}
      {instances.data && instances.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Instance</th>
              <th scope="col">Label</th>
              <th scope="col">Status</th>
              <th scope="col">GPUs</th>
              <th scope="col">Template</th>
              <th scope="col">Price</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {instances.data.map((instance) => (
              <tr key={instance.id} data-testid="instance-row">
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
                <td>{instance.model ? `${instance.template} · ${instance.model}` : instance.template}</td>
                <td>{formatPerHour(instance.price_hour_micros)}</td>
                <td>{formatTime(instance.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
