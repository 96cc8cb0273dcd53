// What the launch form's choice costs, whether the balance covers its first hour, and how many of
// those GPUs are free now; read out again whenever the choice changes.
import type { Gpu } from "../../api/catalog.ts";
import { formatDollars, formatPerHour } from "../../format/money.ts";
import { pricePerHour } from "./launch-choices.ts";

export function LaunchSummary({ gpu, count, balanceMicros }: { gpu: Gpu | undefined; count: number; balanceMicros: number }) {
  if (!gpu) return null;
  const price = pricePerHour(gpu, count);
  const covered = balanceMicros >= price;
  return (
    <div className="launch-summary" aria-live="polite">
      <p>
        Price: <strong data-testid="launch-price">{formatPerHour(price)}</strong> ({count} × {formatPerHour(gpu.price_hour_micros)}), billed by the
        millisecond while running.
      </p>
      <p className={covered ? "" : "warning"}>
        {covered
          ? `Your balance of ${formatDollars(balanceMicros)} covers the first hour.`
          : `Your balance of ${formatDollars(balanceMicros)} does not cover the first hour (${formatDollars(price)}): add credit before launching.`}
      </p>
      <p className={gpu.free_gpus >= count ? "" : "warning"}>
        {gpu.free_gpus === 0
          ? `No ${gpu.display_name} is free right now.`
          : `${gpu.free_gpus} ${gpu.display_name} free now${gpu.free_gpus < count ? `, fewer than ${count}` : ""}.`}
      </p>
    </div>
  );
}
