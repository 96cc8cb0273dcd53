// The ways to reach the same upstream (one dev container port): our proxy and the baselines.
// Every suite runs its measurement on each route, so ratios compare like with like.
import type { BaselineKey } from "./results-model.ts";

export type RouteKey = "ours" | Exclude<BaselineKey, "noop">;

export interface Route {
  key: RouteKey;
  /** URL prefix that stands for the upstream's "/" (no trailing slash). */
  base: string;
  headers: Record<string, string>;
}

export function routeUrl(route: Route, path: string): string {
  return `${route.base}${path}`;
}

export function wsUrl(route: Route, path: string): string {
  return routeUrl(route, path).replace(/^http/, "ws");
}

export interface RouteSet {
  ours: Route;
  direct: Route;
  passthrough: Route;
  /** Absent when nginx could not be installed or started. */
  nginx: Route | null;
}

export function buildRoutes(options: { baseUrl: string; instanceId: string; containerPort: number; key: string; upstreamPort: number; nginxPort: number | null }): RouteSet {
  return {
    ours: { key: "ours", base: `${options.baseUrl}/v1/instances/${options.instanceId}/proxy/${options.containerPort}`, headers: { authorization: `Bearer ${options.key}` } },
    direct: { key: "direct", base: `http://127.0.0.1:${options.upstreamPort}`, headers: {} },
    passthrough: { key: "passthrough", base: `${options.baseUrl}/bench/passthrough/${options.upstreamPort}`, headers: {} },
    nginx: options.nginxPort === null ? null : { key: "nginx", base: `http://127.0.0.1:${options.nginxPort}`, headers: {} },
  };
}

/** Baselines first (they warm nothing of ours), ours last. */
export function allRoutes(routes: RouteSet): Route[] {
  return [routes.direct, ...(routes.nginx ? [routes.nginx] : []), routes.passthrough, routes.ours];
}
