import { describe, expect, it } from "vitest";
import { allRoutes, buildRoutes, routeUrl } from "./routes.ts";

const routes = buildRoutes({
  baseUrl: "http://127.0.0.1:8787", instanceId: "i-abcdefghijklmnop", containerPort: 8000, key: "gpk_k",
  upstreamPort: 41000, minimalPort: 42000, nginxPort: 43000, app: { host: "i-abcdefghijklmnop-8000.localhost:8787", cookie: "gpr_app=s" },
});

describe("routes", () => {
  it("(a) is the minimal server; the container, nginx, the pass-through and ours reach the container's port", () => {
    expect(routeUrl(routes.direct, "/fast/bytes?n=1")).toBe("http://127.0.0.1:42000/fast/bytes?n=1");
    expect(routeUrl(routes.container, "/sse")).toBe("http://127.0.0.1:41000/sse");
    expect(routeUrl(routes.nginx!, "/x")).toBe("http://127.0.0.1:43000/x");
    expect(routeUrl(routes.passthrough, "/x")).toBe("http://127.0.0.1:8787/bench/passthrough/41000/x");
    expect(routeUrl(routes.ours, "/x")).toBe("http://127.0.0.1:8787/v1/instances/i-abcdefghijklmnop/proxy/8000/x");
    expect(routes.ours.headers).toEqual({ authorization: "Bearer gpk_k" });
    expect(routeUrl(routes.apps!, "/x")).toBe("http://127.0.0.1:8787/x");
    expect(routes.apps!.headers).toEqual({ host: "i-abcdefghijklmnop-8000.localhost:8787", cookie: "gpr_app=s" });
  });

  it("runs baselines first and ours last; a container-only measurement leaves (a) out", () => {
    expect(allRoutes(routes).map((r) => r.key)).toEqual(["direct", "container", "nginx", "passthrough", "ours", "apps"]);
    expect(allRoutes(routes, { containerOnly: true }).map((r) => r.key)).toEqual(["container", "nginx", "passthrough", "ours", "apps"]);
    expect(allRoutes(routes, { containerOnly: true, apps: false }).map((r) => r.key)).toEqual(["container", "nginx", "passthrough", "ours"]);
    expect(allRoutes({ ...routes, nginx: null, apps: null }).map((r) => r.key)).toEqual(["direct", "container", "passthrough", "ours"]);
  });
});
