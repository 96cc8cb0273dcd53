// The ways to reach an upstream: our proxy, nginx and the Worker pass-through all reach the instance's
// dev container port; (a) direct is the minimal server, which serves the same fast routes (/fast/…)
// with the same code, and (a′) is the container reached directly. Every suite runs its measurement on
// each route that serves what it asks, so ratios compare like with like.
import type { BaselineKey } from "./results-model.ts";

/** "apps": our proxy as an instance web app's origin (`{id}-{port}.APPS_DOMAIN`), measured beside the path proxy. The baselines that are no upstream route (the noop route, (d), (e), (f)) are none. */
export type RouteKey = "ours" | "apps" | Exclude<BaselineKey, "noop" | "proxied" | "objects" | "floor">;

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
  /** The minimal server: serves /fast/… only. */
  direct: Route;
  container: Route;
  passthrough: Route;
  /** Absent when nginx could not be installed or started. */
  nginx: Route | null;
  /** The same instance port on its apps origin; absent when it could not be opened. */
  apps: Route | null;
}

export function buildRoutes(options: {
  baseUrl: string; instanceId: string; containerPort: number; key: string; upstreamPort: number; minimalPort: number; nginxPort: number | null;
  app: { host: string; cookie: string } | null;
}): RouteSet {
  return {
    ours: { key: "ours", base: `${options.baseUrl}/v1/instances/${options.instanceId}/proxy/${options.containerPort}`, headers: { authorization: `Bearer ${options.key}` } },
    direct: { key: "direct", base: `http://127.0.0.1:${options.minimalPort}`, headers: {} },
    container: { key: "container", base: `http://127.0.0.1:${options.upstreamPort}`, headers: {} },
    passthrough: { key: "passthrough", base: `${options.baseUrl}/bench/passthrough/${options.upstreamPort}`, headers: {} },
    nginx: options.nginxPort === null ? null : { key: "nginx", base: `http://127.0.0.1:${options.nginxPort}`, headers: {} },
    apps: options.app === null ? null : { key: "apps", base: options.baseUrl, headers: { host: options.app.host, cookie: options.app.cookie } },
  };
}

/** `containerOnly`: the measurement needs a route only the dev container serves (SSE, WebSocket, chat completions). */
export interface RouteChoice {
  containerOnly?: boolean;
  /** False where the client cannot send the app's Host (the openai SDK's fetch). */
  apps?: boolean;
}

/** Baselines first (they warm nothing of ours), ours last, then the apps origin; (a) left out when `containerOnly`. */
export function allRoutes(routes: RouteSet, { containerOnly = false, apps = true }: RouteChoice = {}): Route[] {
  return [
    ...(containerOnly ? [] : [routes.direct]), routes.container, ...(routes.nginx ? [routes.nginx] : []), routes.passthrough, routes.ours,
    ...(routes.apps && apps ? [routes.apps] : []),
  ];
}
