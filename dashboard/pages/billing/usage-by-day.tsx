// This month's cost per day (instances and storage together) as bars (uPlot, on a canvas): the days' amounts stay integer
// micro-dollars, and only the axis labels turn them into dollars. The figure says how many days it
// shows, which is what a test can read of a canvas.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { StorageUsageItem, UsageItem } from "../../api/usage.ts";
import { formatDollars } from "../../format/money.ts";

const HEIGHT = 160;
const DAY_S = 86_400;

/** The items of group=day, instances' and storage's, summed per day: [day start in seconds, micro-dollars]. */
function dailyTotals(items: Array<UsageItem | StorageUsageItem>): [number[], number[]] {
  const totals = new Map<string, number>();
  for (const item of items) totals.set(item.day!, (totals.get(item.day!) ?? 0) + item.amount_micros);
  const days = [...totals.keys()].sort();
  return [days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), days.map((day) => totals.get(day)!)];
}

/** The x axis: the whole month (UTC) of `dayS` (or of today), half a day of margin each side for the bars. */
function monthRange(dayS: number | undefined): [number, number] {
  const date = new Date(dayS === undefined ? Date.now() : dayS * 1000);
  const [year, month] = [date.getUTCFullYear(), date.getUTCMonth()];
  return [Date.UTC(year, month, 1) / 1000 - DAY_S / 2, Date.UTC(year, month + 1, 0) / 1000 + DAY_S / 2];
}

export function UsageByDay({ items, storage }: { items: UsageItem[]; storage: StorageUsageItem[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [days, amounts] = dailyTotals([...items, ...storage]);

  useEffect(() => {
    const element = box.current!;
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        series: [{}, { label: "Cost", fill: "#2456d6", stroke: "#2456d6", paths: uPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } }],
        scales: { x: { time: true, range: () => monthRange(days[0]) }, y: { range: (_u, _min, max) => [0, Math.max(max, 10_000)] } },
        axes: [{}, { size: 70, values: (_u, splits) => splits.map((micros) => formatDollars(Math.round(micros))) }],
        legend: { show: false },
      },
      [days, amounts],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days.join(), amounts.join()]);

  return (
    <figure className="metrics-chart" data-testid="usage-chart" data-days={days.length} aria-label="Cost per day this month">
      <figcaption>Cost per day</figcaption>
      <div ref={box} />
    </figure>
  );
}
