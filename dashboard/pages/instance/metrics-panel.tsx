// The instance page's charts of its usage: GPU utilisation, memory and power per GPU, the container's
// CPU and memory, over the last hour, day or week, refreshed as new samples come.
import { useMemo, useState } from "react";
import { METRICS_WINDOWS, useInstanceMetrics, type MetricsWindow } from "../../api/metrics.ts";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { MetricsChart } from "./metrics-chart.tsx";
import { chartsOf } from "./metrics-charts.ts";

const WINDOW_NAMES: Record<MetricsWindow, string> = { "1h": "Last hour", "24h": "Last 24 hours", "7d": "Last 7 days" };

export function MetricsPanel({ id }: { id: string }) {
  const [shown, show] = useState<MetricsWindow>("1h");
  const metrics = useInstanceMetrics(id, shown);
  const data = metrics.data;
  // Charts change only with a new answer, not with every render of the page around them.
  const charts = useMemo(() => (data ? chartsOf(data) : []), [data]);
  const empty = data !== undefined && data.container.length === 0 && data.gpus.length === 0;
  return (
    <section aria-labelledby="metrics-heading">
      <h2 id="metrics-heading">Metrics</h2>
      <fieldset className="window-switch">
        <legend>Window</legend>
        {METRICS_WINDOWS.map((choice) => (
          <label key={choice}>
            <input type="radio" name="metrics-window" value={choice} checked={shown === choice} onChange={() => show(choice)} /> {WINDOW_NAMES[choice]}
          </label>
        ))}
      </fieldset>
      {metrics.isPending && <Loading what="the metrics" />}
      {metrics.isError && <LoadError what="the metrics" error={metrics.error} />}
      {empty && <p className="empty">No samples in this window: the host samples an instance every 10 s while it runs.</p>}
      {data && !empty && (
        <div className="metrics-charts">
          {charts.map((chart) => (
            <MetricsChart key={`${shown} ${chart.title}`} {...chart} />
          ))}
        </div>
      )}
    </section>
  );
}
