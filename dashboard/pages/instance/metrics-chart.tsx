// One time-series chart, drawn by uPlot on a canvas: created once per set of lines, given new data as
// the query refreshes, resized with its container. The figure says how many points it shows, which
// is what a test (or a curious person with the inspector) can read of a canvas.
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { Chart } from "./metrics-charts.ts";

const HEIGHT = 180;
/** Line colours that stay apart on light and dark backgrounds, one per GPU of an 8-GPU instance. */
const COLOURS = ["#2456d6", "#d9480f", "#2b8a3e", "#9c36b5", "#e67700", "#0b7285", "#c2255c", "#5c940d"];

export function MetricsChart({ title, unit, times, lines, max }: Chart) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = lines.map((line) => line.label).join("\n");

  useEffect(() => {
    const element = box.current!;
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        series: [{}, ...lines.map((line, i) => ({ label: line.label, stroke: COLOURS[i % COLOURS.length], width: 1.5, spanGaps: false }))],
        scales: max === undefined ? {} : { y: { range: [0, max] } },
        axes: [{}, { label: unit, size: 60 }],
        legend: { show: lines.length > 1 },
      },
      [times, ...lines.map((line) => line.values)],
      element,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // A new chart only when its lines or axis change; new points go through setData below.
  }, [shape, unit, max]);

  useEffect(() => {
    plot.current?.setData([times, ...lines.map((line) => line.values)]);
  }, [times, lines]);

  return (
    <figure className="metrics-chart" data-testid="metrics-chart" data-points={times.length} aria-label={`${title} (${unit})`}>
      <figcaption>
        {title} <span className="muted">({unit})</span>
      </figcaption>
      <div ref={box} />
    </figure>
  );
}
