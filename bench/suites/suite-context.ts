// What every suite gets (config, routes, the stack's processes) and the helpers they share: run a
// measurement on each route, and turn per-route values into a figure with baselines.
import type { NginxBaseline } from "../baselines/nginx.ts";
import type { BenchConfig } from "../bench-config.ts";
import type { Better, Figure } from "../results-model.ts";
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
