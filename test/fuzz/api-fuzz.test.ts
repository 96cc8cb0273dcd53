// Property-based fuzz test of the whole API, driven by its own OpenAPI document: for every operation
// (customer, operator and auth routes, and the proxy path) fast-check builds valid and broken
// requests and sends them through the Worker entry with the real Durable Objects. Every response
// must pass ResponseChecker; valid requests must reach a success. Operations appear by themselves
// when routes are added; one that cannot be exercised here must be listed below with the reason.
import fc from "fast-check";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createApiApp } from "../../workers/api/app.ts";
import { COMMITTED_SERVER, openApiDocument } from "../../workers/api/openapi-document.ts";
import { BASE } from "../support/workerd/api-client.ts";
import { setUpFixture, type FuzzFixture } from "./fuzz-fixture.ts";
import { operationsOf, type OpenApiDocument, type Operation } from "./openapi-operations.ts";
import { requestArbitrary, type BodyPlan } from "./request-plan.ts";
import { ResponseChecker } from "./response-check.ts";
import { buildRequest, healCredentials, send, type SentRequest } from "./request-run.ts";

/** Operations left out of the fuzz test altogether, and why. */
const NOT_FUZZED: Record<string, string> = {
  ...Object.fromEntries(["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"].map((method) => [
    `${method} /{path}`,
    "an instance web app's own origin ({instance id}-{port}.APPS_DOMAIN), documented for reference: not this service's origin, and its refusals are pages for people (workers/apps/*.test.ts, test/e2e/apps.test.ts)",
  ])),
  "POST /admin/v1/machines/{id}/token": "a new token cuts off the fuzz's own hosts mid-run (small ids are theirs); durable-objects/machine/machine-token.test.ts covers it",
  "DELETE /admin/v1/machines/{id}": "retiring would take the fuzz's own hosts away mid-run; durable-objects/machine/machine-token.test.ts covers it",
  ...Object.fromEntries(["GET /v1/instances/{id}/ssh", "GET /v1/instances/{id}/terminal"].map((key) => [
    key,
    "a WebSocket the host agent itself answers (its SSH server, a shell): the fuzz fixture's hosts answer no ssh_open or terminal_open, so an upgrade would wait; workers/proxy/ssh.test.ts and terminal.test.ts cover every refusal and the opening",
  ])),
  ...Object.fromEntries(["GET /v1/instances/{id}/files", "PUT /v1/instances/{id}/files"].map((key) => [
    key,
    "a tar the host agent itself reads or writes: the fuzz fixture's hosts answer no files_open, so a valid request would wait; workers/api/routes/files-routes.test.ts covers every refusal and both directions",
  ])),
};
/** Operations fuzzed for errors that no valid request can bring to a success here, and why. */
const NO_SUCCESS_HERE: Record<string, string> = {
  "POST /v1/billing/checkout": "payments are off in the workerd tests (no STRIPE_SECRET_KEY): 409; the checkout is end to end (test/e2e/payments.test.ts)",
  "POST /v1/billing/stripe/webhook": "only a body Stripe signed succeeds; the signed events are payment-routes.test.ts's",
  "POST /v1/ssh-keys": "no generated string is a valid OpenSSH public key of a real key: 400 naming public_key; ssh-key-routes.test.ts covers each success",
  "DELETE /v1/ssh-keys/{id}": "the fuzz fixture holds no SSH key, so no id it sends names one: 404; ssh-key-routes.test.ts covers the removal",
  ...Object.fromEntries([
    "DELETE /v1/webhooks/{id}", "PATCH /v1/webhooks/{id}", "GET /v1/webhooks/{id}/deliveries", "POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry",
    "POST /v1/webhooks/{id}/rotate-secret", "POST /v1/webhooks/{id}/test",
  ].map((key) => [key, "the fuzz fixture holds no webhook endpoint, so no id it sends names one: 404; webhook-routes.test.ts covers each success"])),
  ...Object.fromEntries([
    "GET /v1/volumes/{id}", "PATCH /v1/volumes/{id}", "DELETE /v1/volumes/{id}", "POST /v1/volumes/{id}/save", "GET /v1/volumes/{id}/files",
    "PUT /v1/volumes/{id}/files", "GET /v1/volumes/{id}/snapshots", "POST /v1/volumes/{id}/snapshots", "DELETE /v1/volumes/{id}/snapshots/{snapshot_id}",
  ].map((key) => [key, "the fuzz fixture holds no volume, so no id or name it sends names one: 404; volume-routes.test.ts and volume-files-routes.test.ts cover each success"])),
  ...Object.fromEntries([
    "PATCH /v1/members/{user_id}", "DELETE /v1/members/{user_id}", "DELETE /v1/members/invitations/{id}", "POST /v1/auth/accept-invitation",
  ].map((key) => [key, "the fuzz fixture has no other member and no invitation, so no id or token it sends names one: 404 (its one member is the last owner: 409); member-routes.test.ts and team-auth.test.ts cover each success"])),
  "POST /v1/auth/switch": "the fuzz fixture's caller is a key, not a person's session cookie: 401; team-auth.test.ts covers the switch",
};

const MIN_RUNS_FOR_SUCCESS = 20;

const document = openApiDocument(createApiApp(), COMMITTED_SERVER) as unknown as OpenApiDocument;
const settings = inject("fuzz");
const operations = operationsOf(document).filter((operation) => operation.key.includes(settings.op));

interface Tally {
  requests: number;
  valid: number;
  successes: number;
  statuses: Record<number, number>;
}

describe("API fuzz test (fast-check, driven by the OpenAPI document)", () => {
  let fixture: FuzzFixture;
  const checker = new ResponseChecker(document);
  const tallies = new Map<string, Tally>();

  beforeAll(async () => {
    fixture = await setUpFixture();
  }, 60_000);

  it("lists of exceptions name only operations the document has", () => {
    const keys = new Set(operationsOf(document).map((operation) => operation.key));
    for (const key of [...Object.keys(NOT_FUZZED), ...Object.keys(NO_SUCCESS_HERE)]) expect(keys, key).toContain(key);
  });

  // What NOT_FUZZED lists is left out with its reason written there, not registered as a skipped test.
  for (const operation of operations) {
    if (NOT_FUZZED[operation.key] !== undefined) continue;
    it(`${operation.key}: no 5xx, errors exactly {error, message}, documented statuses, no internals, successes match their schema`, { timeout: 60_000 + settings.runs * 300 }, async () => {
      const tally: Tally = { requests: 0, valid: 0, successes: 0, statuses: {} };
      tallies.set(operation.key, tally);
      const property = fc.asyncProperty(requestArbitrary(document, operation), async (plan) => {
        const sent = await buildRequest(fixture, operation, plan);
        const response = await send(sent);
        const problems = await checker.check(operation, sent, response);
        tally.requests++;
        tally.statuses[response.status] = (tally.statuses[response.status] ?? 0) + 1;
        if (sent.valid) tally.valid++;
        if (sent.valid && response.status < 300) tally.successes++;
        await healCredentials(fixture, operation, plan, response.status);
        if (problems.length > 0) throw new Error(report(operation, sent, response.status, problems));
      });
      await fc.assert(property, { numRuns: settings.runs, seed: seedFor(settings.seed, operation.key) });
    });
  }

  it("paths outside the document (unknown routes, the agent endpoint, the document itself) hold too", { timeout: 60_000 + settings.runs * 300 }, async () => {
    const property = fc.asyncProperty(outsideRequestArbitrary, async ({ method, path, authorization, body }) => {
      const sent: SentRequest = {
        method, url: `${BASE}${path}`, body, valid: false, brokenPath: true,
        headers: [["cf-connecting-ip", "10.0.0.1"], ...(authorization ? [["authorization", authorization] as [string, string]] : []), ...(body?.contentType ? [["content-type", body.contentType] as [string, string]] : [])],
      };
      const response = await send(sent);
      const problems = isDashboardRead(method, path) ? await dashboardProblems(response) : await checker.check(OUTSIDE_THE_DOCUMENT, sent, response);
      if (problems.length > 0) throw new Error(report(OUTSIDE_THE_DOCUMENT, sent, response.status, problems));
    });
    await fc.assert(property, { numRuns: settings.runs, seed: seedFor(settings.seed, OUTSIDE_THE_DOCUMENT.key) });
  });

  // A few requests per operation are a smoke run, too few to expect a success of each.
  it.skipIf(settings.runs < MIN_RUNS_FOR_SUCCESS)("valid requests reached a success on every operation not listed in NO_SUCCESS_HERE", () => {
    console.log(summary(tallies));
    const missed = [...tallies].filter(([key, tally]) => tally.successes === 0 && NO_SUCCESS_HERE[key] === undefined);
    expect(missed.map(([key, tally]) => `${key}: ${tally.valid} valid of ${tally.requests}, statuses ${JSON.stringify(tally.statuses)}`)).toEqual([]);
  });
});

/** What the service may answer to a request for no operation of the document. */
const OUTSIDE_THE_DOCUMENT: Operation = {
  key: "a path outside the document", method: "", path: "", parameters: [], body: null, security: [],
  // 200: GET /v1/openapi.json (any JSON); 204: an agent token check; errors: whatever the path is.
  responses: { 200: {}, 204: null, 400: null, 401: null, 404: null, 413: null },
};

/** A read of a path the Worker does not own (as the URL resolves it: `/v1/..` is `/`): the dashboard's page or files. */
const isDashboardRead = (method: string, path: string) =>
  (method === "GET" || method === "HEAD") && !/^\/(v1|admin|agent|bench)(\/|$)/.test(new URL(`${BASE}${path}`).pathname);

async function dashboardProblems(response: Response): Promise<string[]> {
  const text = await response.text();
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`a dashboard read answered ${response.status}, not the page`);
  if (!/^text\/html\b/.test(response.headers.get("content-type") ?? "")) problems.push(`a dashboard read is ${response.headers.get("content-type")}, not the page`);
  if (!/^req_[a-z2-7]{20}$/.test(response.headers.get("x-request-id") ?? "")) problems.push("no X-Request-Id");
  if (/\n\s+at \S|node_modules|\.(m?[jt]s|cjs):\d+/.test(text)) problems.push("the page shows internals");
  return problems;
}

const outsideRequestArbitrary = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
  path: fc.tuple(
    fc.constantFrom("", "/v1", "/admin/v1", "/agent/v1/connect", "/v1/openapi.json", "/v1/instances/x/proxy", "/v1/instances//proxy/0", "/bench", "/v1/auth"),
    fc.oneof(fc.constant(""), fc.webPath(), fc.constantFrom("/", "//", "/%", "/%zz", "/..", "/__proto__", "?__proto__=1")),
  ).map(([prefix, rest]) => prefix + rest),
  authorization: fc.constantFrom(undefined, "Bearer gma_1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Bearer gma_9999999999_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Bearer test-admin-token", "Bearer x"),
  body: fc.option(fc.constantFrom<BodyPlan>({ label: "JSON", contentType: "application/json", chunks: ["{}"] }, { label: "text", contentType: "text/plain", chunks: ["x"] })),
}).map((request) => (request.method === "GET" || request.method === "HEAD" ? { ...request, body: null } : request));

function summary(tallies: Map<string, Tally>): string {
  const rows = [...tallies].map(([key, t]) => `${key.padEnd(52)} ${String(t.requests).padStart(6)} ${String(t.valid).padStart(6)} ${String(t.successes).padStart(6)}  ${JSON.stringify(t.statuses)}`);
  return [`${"operation".padEnd(52)} ${"sent".padStart(6)} ${"valid".padStart(6)} ${"2xx".padStart(6)}  statuses`, ...rows].join("\n");
}

/** One seed per operation, from the run's seed and the operation's key, so adding a route changes no other's requests. */
function seedFor(seed: number, key: string): number {
  let hash = seed | 0;
  for (const char of key) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

function report(operation: Operation, sent: SentRequest, status: number, problems: string[]): string {
  const shown = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text);
  const body = sent.body
    ? `${sent.body.label}: ${shown(sent.body.chunks.map((chunk) => (typeof chunk === "string" ? chunk : `<bytes ${chunk.map((b) => b.toString(16)).join(" ")}>`)).join(""))}`
    : "none";
  return [
    `${operation.key} answered ${status}: ${problems.join("; ")}`,
    `  request: ${sent.method} ${shown(sent.url)}`,
    `  headers: ${sent.headers.map(([name, value]) => `${name}: ${shown(value)}`).join(" | ")}`,
    `  body: ${body}`,
  ].join("\n");
}
