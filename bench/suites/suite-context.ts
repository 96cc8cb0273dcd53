// What every suite gets (config, routes, the stack's processes) and the helpers they share: run a
// measurement on each route, and turn per-route values into figures with baselines.
import type { NginxBaseline } from "../baselines/nginx.ts";
import type { BenchConfig } from "../bench-config.ts";
import type { BaselineKey, Better, Figure } from "../results-model.ts";
import { allRoutes, type Route, type RouteChoice, type RouteKey, type RouteSet } from "../routes.ts";
import type { MinimalServer } from "../baselines/minimal.ts";
import type { BenchStack } from "../stack/bench-stack.ts";

export interface SuiteContext {
  config: BenchConfig;
  routes: RouteSet;
  stack: BenchStack;
  nginx: NginxBaseline | null;
  minimal: MinimalServer;
  log(line: string): void;
}

export type PerRoute<T> = Partial<Record<RouteKey, T | null>>;

/** The baseline columns of a section measured with `containerOnly`: (a), the minimal server, serves none of those routes. */
export const CONTAINER_BASELINES: BaselineKey[] = ["container", "nginx", "passthrough"];

/** Runs `measure` on every route `choice` takes, in turn; a route that fails yields null and a note. */
export async function onEachRoute<T>(
  ctx: SuiteContext, notes: string[], what: string, measure: (route: Route) => Promise<T>, choice: RouteChoice = {},
): Promise<PerRoute<T>> {
  const results: PerRoute<T> = {};
  for (const route of allRoutes(ctx.routes, choice)) {
    try {
      results[route.key] = await measure(route);
    } catch (error) {
      results[route.key] = null;
      notes.push(`${what} on ${route.key} failed: ${(error as Error).message}`);
    }
  }
  if (!ctx.routes.nginx) results.nginx = null;
  if (choice.containerOnly) results.direct = null;
  return results;
}

/** The figure of `ours` (the path proxy), or with `of: "apps"` the same figure of the apps origin (id and label marked so). */
export function routeFigure<T>(
  id: string, label: string, unit: string, better: Better, results: PerRoute<T>, pick: (value: T) => number, of: "ours" | "apps" = "ours",
): Figure {
  const value = (key: RouteKey) => {
    const result = results[key];
    return result === undefined || result === null ? null : pick(result);
  };
  if (of === "apps") return { ...routeFigure(id, label, unit, better, results, pick), id: `${id}.apps`, label: `${label}, apps origin`, ours: value("apps") };
  return { id, label, unit, better, ours: value("ours"), baselines: { direct: value("direct"), container: value("container"), nginx: value("nginx"), passthrough: value("passthrough") } };
}

/** One figure of a measurement, as `routeFigure` takes it; `apps` shows the apps origin's figure too. */
export interface FigureSpec<T> {
  id: string;
  label: string;
  unit: string;
  better: Better;
  pick: (value: T) => number;
  apps?: true;
}

/** The figures of one measurement: each of ours in order, then the apps origin's of those marked `apps`. */
export function routeFigures<T>(results: PerRoute<T>, specs: FigureSpec<T>[]): Figure[] {
  const figure = (spec: FigureSpec<T>, of: "ours" | "apps") => routeFigure(spec.id, spec.label, spec.unit, spec.better, results, spec.pick, of);
  return [...specs.map((spec) => figure(spec, "ours")), ...specs.filter((spec) => spec.apps).map((spec) => figure(spec, "apps"))];
}
