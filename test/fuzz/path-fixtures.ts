// Valid values of path parameters that name something that must exist (an instance, a key, an
// account), matched by path prefix and parameter name, so operations added later under these paths
// get them too. Parameters not listed here take values generated from their schema.
import { spareKeyId, victimInstance, type FuzzFixture } from "./fuzz-fixture.ts";
import type { Operation } from "./openapi-operations.ts";

interface PathFixture {
  path: RegExp;
  param: string;
  value: (fixture: FuzzFixture, operation: Operation) => string | Promise<string>;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

// First match wins.
const PATH_FIXTURES: PathFixture[] = [
  { path: /^\/admin\/v1\/accounts\/\{id\}\/keys\/\{key_id\}/, param: "key_id", value: (f) => spareKeyId(f.victimAccountId, null) },
  { path: /^\/admin\/v1\/accounts\/\{id\}/, param: "id", value: (f) => f.victimAccountId },
  { path: /^\/v1\/keys\/\{id\}/, param: "id", value: (f) => spareKeyId(f.accountId, f.key) },
  // The proxy never changes the instance: every method goes to the running one, on a port it serves.
  { path: /^\/v1\/instances\/\{id\}\/proxy\//, param: "id", value: (f) => f.instanceId },
  { path: /^\/v1\/instances\/\{id\}\/proxy\//, param: "port", value: () => "8000" },
  // Opening a web app never changes the instance either: the running one, on its HTTP port (pytorch's Jupyter).
  { path: /^\/v1\/instances\/\{id\}\/ports\//, param: "id", value: (f) => f.instanceId },
  { path: /^\/v1\/instances\/\{id\}\/ports\//, param: "port", value: () => "8888" },
  {
    path: /^\/v1\/instances\/\{id\}/, param: "id",
    value: (f, op) => (SAFE_METHODS.has(op.method) ? f.instanceId : victimInstance(f, op.path.endsWith("/start"))),
  },
];

const fixtureFor = (operation: Operation, param: string) => PATH_FIXTURES.find((f) => f.param === param && f.path.test(operation.path));

export const hasPathFixture = (operation: Operation, param: string) => fixtureFor(operation, param) !== undefined;

export async function pathFixtureValue(fixture: FuzzFixture, operation: Operation, param: string): Promise<string> {
  const found = fixtureFor(operation, param);
  if (!found) throw new Error(`no path fixture for ${param} of ${operation.key}`);
  return found.value(fixture, operation);
}
