// `npm run dev`: the whole service locally (README: "Quick start"). `--fresh` starts empty;
// `--stripe-stand-in` turns card payments on against a local stand-in of Stripe's Checkout.
import { randomBytes } from "node:crypto";
import { buildDashboardIfStale } from "./dev/dashboard.ts";
import { startStack } from "./dev/stack.ts";
import { startStripeStandIn } from "./dev/stripe-stand-in.ts";

const port = Number(process.env.PORT ?? 8787);
const stateDir = process.env.DEV_STATE_DIR ?? ".wrangler/state";
const adminToken = process.env.ADMIN_TOKEN ?? "dev-admin-token";
const passed = (names: string[]) =>
  Object.fromEntries(names.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]!]));

// The dashboard as the sources are now (built here, so a failure reads as such).
await buildDashboardIfStale().catch((error: Error) => {
  console.error(`building the dashboard failed: ${error.message}`);
  process.exit(1);
});

const stripeSecrets = { STRIPE_SECRET_KEY: "sk_test_dev_stand_in", STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString("base64")}` };
const stripe = process.argv.includes("--stripe-stand-in")
  ? await startStripeStandIn({ secretKey: stripeSecrets.STRIPE_SECRET_KEY, webhookSecret: stripeSecrets.STRIPE_WEBHOOK_SECRET, webhookUrl: () => `http://127.0.0.1:${port}/v1/billing/stripe/webhook` })
  : null;

const stack = await startStack({
  port,
  stateDir,
  adminToken,
  fresh: process.argv.includes("--fresh"),
  vars: {
    ...passed(["RATE_LIMIT_RPS", "HEARTBEAT_TIMEOUT_MS", "LAUNCH_TIMEOUT_MS", "AUTH_RATE_LIMIT_PER_MIN", "SIGNUP_CREDIT_MICROS", "APPS_DOMAIN", "APPS_RATE_LIMIT_RPS", "ADMIN_RATE_LIMIT_RPS", "ACCOUNT_MAX_GPUS", "IMAGE_REGISTRIES", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_URL"]),
    ...(stripe ? { ...stripeSecrets, STRIPE_API_URL: stripe.url } : {}),
  },
  agentEnv: { ...passed(["DEV_READY_DELAY_MS"]), ADMIN_TOKEN: adminToken },
  echo: true,
}).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});

const base = `${stack.baseUrl}/v1`;
console.log(`
GPU rental, local stack
  dashboard      ${stack.baseUrl}/
  API base URL   ${base}
  web apps       http://{instance id}-{port}.${stack.appsDomain}/ (Open on an instance's page)
  API key        ${stack.setup.account.key}
  dev login      ${stack.setup.account.email} / ${stack.setup.account.password}
  admin token    ${adminToken}
  machines       dev-1 (8 x rtx4090), dev-2 (2 x h100-80gb), local runtime
  state          ${stateDir}
  payments       ${stripe ? `on, Stripe stand-in at ${stripe.url} (its Checkout page pays; README "Billing": disputes, fraud warnings)` : "off (--stripe-stand-in turns them on locally)"}

Try:
  curl -H "Authorization: Bearer ${stack.setup.account.key}" ${base}/gpus
`);
console.log(`READY ${base}`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  await stripe?.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
stack.worker.process.on("exit", (code) => {
  if (stopping) return;
  console.error(`wrangler exited (${code}); stopping`);
  void shutdown();
});
