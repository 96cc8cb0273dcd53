// The running instances on the overview: what each is and costs.
import type { Instance } from "../../api/instances.ts";
import { formatPerHour } from "../../format/money.ts";
import { Link } from "../../router/router.tsx";

export function RunningList({ instances }: { instances: Instance[] }) {
  return (
    <ul className="cards">
      {instances.map((instance) => (
        <li key={instance.id}>
          <Link to={`/instances/${instance.id}`}>{instance.label || instance.id}</Link>
          <span className="muted">
            {instance.gpu_count} × {instance.gpu_model} · {instance.template}
            {instance.model ? ` · ${instance.model}` : ""}
          </span>
          <span>{formatPerHour(instance.price_hour_micros)}</span>
        </li>
      ))}
    </ul>
  );
}
