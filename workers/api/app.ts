// The API: /v1 for clients (an API key or a session cookie; /v1/auth to get one), /admin/v1 for
// operators, and the generated OpenAPI document.
import { OpenAPIHono } from "@hono/zod-openapi";
import { ApiError } from "../../core/errors.ts";
import { errorResponseFor } from "../http/to-api-error.ts";
import type { ApiEnv } from "./context.ts";
import { adminAuth } from "./middleware/admin-auth.ts";
import { authBudget } from "./middleware/auth-budget.ts";
import { bodyRule } from "./middleware/body-rule.ts";
import { callerAuth } from "./middleware/caller-auth.ts";
import { sessionOnly } from "./middleware/session-only.ts";
import { accountRoutes } from "./routes/account-routes.ts";
import { adminRoutes } from "./routes/admin-routes.ts";
import { appRoutes } from "./routes/app-routes.ts";
import { authRoutes } from "./routes/auth-routes.ts";
import { auditRoutes } from "./routes/audit-routes.ts";
import { billingRoutes } from "./routes/billing-routes.ts";
import { paymentRoutes, STRIPE_WEBHOOK_PATH } from "./routes/payment-routes.ts";
import { pricingRoutes } from "./routes/pricing-routes.ts";
import { instanceRoutes } from "./routes/instance-routes.ts";
import { filesRoutes } from "./routes/files-routes.ts";
import { keyRoutes } from "./routes/key-routes.ts";
import { logsRoutes } from "./routes/logs-routes.ts";
import { memberRoutes } from "./routes/member-routes.ts";
import { metricsRoutes } from "./routes/metrics-routes.ts";
import { metricsExportRoutes } from "./routes/metrics-export-routes.ts";
import { sshKeyRoutes } from "./routes/ssh-key-routes.ts";
import { volumeRoutes } from "./routes/volume-routes.ts";
import { volumeFilesRoutes } from "./routes/volume-files-routes.ts";
import { documentShellPaths } from "./routes/shell-docs.ts";
import { webhookRoutes } from "./routes/webhook-routes.ts";
import { refuseForeignOrigin } from "./session/same-origin.ts";
import { SESSION_COOKIE } from "../http/browser-session.ts";
import { documentProxyPath } from "./routes/proxy-docs.ts";
import { documentAppOrigin } from "./routes/app-origin-docs.ts";
import { APP_SESSION_COOKIE } from "../http/app-origin.ts";
import { openApiDocument } from "./openapi-document.ts";
import { validationHook } from "./validation.ts";

export function createApiApp(): OpenAPIHono<ApiEnv> {
  const app = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer", description: "An API key: gpk_..." });
  app.openAPIRegistry.registerComponent("securitySchemes", "sessionCookie", {
    type: "apiKey", in: "cookie", name: SESSION_COOKIE,
    description: "The session of a signed-in browser (POST /v1/auth/login). Requests that change something must send Origin: this service's origin.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "instanceToken", {
    type: "http", scheme: "bearer", description: "An instance's own token: opens that instance's proxy and nothing else",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminAuth", { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN" });
  app.openAPIRegistry.registerComponent("securitySchemes", "appSession", {
    type: "apiKey", in: "cookie", name: APP_SESSION_COOKIE,
    description: "An instance web app's session on its own origin, set by following the address POST /v1/instances/{id}/ports/{port}/open gives",
  });
  // The committed openapi.json is this document with a fixed server (npm run openapi).
  app.get("/v1/openapi.json", (c) => c.json(openApiDocument(app, { url: new URL(c.req.url).origin })));

  // Listed paths, not /v1/*: an unknown route is 404 whether or not a key came with it.
  for (const path of ["/v1/me", "/v1/gpus", "/v1/catalog", "/v1/instances", "/v1/instances/*", "/v1/keys", "/v1/keys/*", "/v1/webhooks", "/v1/webhooks/*", "/v1/ssh-keys", "/v1/ssh-keys/*", "/v1/account", "/v1/volumes", "/v1/volumes/*", "/v1/members", "/v1/members/*", "/v1/metrics", "/v1/audit-log"]) {
    app.use(path, callerAuth());
  }
  // Stripe calls its webhook with a signature, not a key: the route verifies it.
  const billingCaller = callerAuth();
  app.use("/v1/billing/*", (c, next) => (c.req.path === STRIPE_WEBHOOK_PATH ? next() : billingCaller(c, next)));
  // The switch between one's own accounts is a signed-in person's choice, not an attempt to guess a login.
  const attempts = authBudget();
  app.use("/v1/auth/*", (c, next) => (c.req.path === "/v1/auth/switch" ? next() : attempts(c, next)));
  app.use("/v1/auth/signup", refuseForeignOrigin());
  app.use("/v1/auth/login", refuseForeignOrigin());
  app.use("/v1/auth/accept-invitation", refuseForeignOrigin());
  app.use("/v1/auth/password", sessionOnly());
  app.use("/v1/auth/switch", sessionOnly());
  app.use("/admin/v1/*", adminAuth());
  // Who may call is settled above; then every route's body goes through the one rule.
  app.use("*", bodyRule(app));
  app.route("/v1", authRoutes);
  app.route("/v1", accountRoutes);
  app.route("/v1", instanceRoutes);
  app.route("/v1", logsRoutes);
  app.route("/v1", filesRoutes);
  app.route("/v1", metricsRoutes);
  app.route("/v1", metricsExportRoutes);
  app.route("/v1", appRoutes);
  app.route("/v1", keyRoutes);
  app.route("/v1", billingRoutes);
  app.route("/v1", auditRoutes);
  app.route("/v1", paymentRoutes);
  app.route("/", pricingRoutes);
  app.route("/v1", webhookRoutes);
  app.route("/v1", sshKeyRoutes);
  app.route("/v1", volumeRoutes);
  app.route("/v1", volumeFilesRoutes);
  app.route("/v1", memberRoutes);
  app.route("/admin/v1", adminRoutes);
  documentProxyPath(app);
  documentShellPaths(app);
  documentAppOrigin(app);

  app.notFound((c) => new ApiError("not_found", `no route ${c.req.method} ${new URL(c.req.url).pathname}`).toResponse());
  app.onError((error) => errorResponseFor(error));
  return app;
}
