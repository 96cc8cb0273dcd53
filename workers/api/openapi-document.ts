// The OpenAPI 3.1 document of the API, built from the routes' zod schemas. One builder for both uses:
// GET /v1/openapi.json serves it with the request's origin as server, and `npm run openapi` commits
// it (openapi.json) with a fixed one. Paths and components are sorted, so the file diffs cleanly.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "./context.ts";
import { MAX_BODY_BYTES } from "./middleware/body-rule.ts";

type Document = ReturnType<OpenAPIHono<ApiEnv>["getOpenAPI31Document"]>;

const OPENAPI_INFO = {
  title: "GPU rental API",
  version: "1.0.0",
  description:
    "Rent GPU servers (instances), pay by the hour from a prepaid balance, and reach the servers inside them " +
    "through the proxy. Amounts are integers in micro-dollars (1,000,000 = $1). Every error is " +
    '`{"error": "<code>", "message": "<what and why>"}`.',
};

/** The server named in the committed openapi.json: the local stack of `npm run dev`. */
export const COMMITTED_SERVER = { url: "http://127.0.0.1:8787", description: "The local stack (npm run dev); clients pass their own base URL" };

const built = new WeakMap<object, Document>();

export function openApiDocument(app: OpenAPIHono<ApiEnv>, server: { url: string; description?: string }): Document {
  let document = built.get(app);
  if (!document) {
    document = normalize(app.getOpenAPI31Document({ openapi: "3.1.0", info: OPENAPI_INFO }));
    built.set(app, document);
  }
  return { ...document, servers: [server] };
}

function normalize(generated: Document): Document {
  const components = generated.components ?? {};
  return {
    openapi: generated.openapi,
    info: generated.info,
    servers: [],
    paths: sortKeys(withBodyRuleAnswers(generated.paths ?? {})),
    components: sortKeys(Object.fromEntries(Object.entries(components).map(([kind, entries]) => [kind, sortKeys(entries ?? {})]))),
  };
}

type Paths = NonNullable<Document["paths"]>;

/** Every operation with a body can get the body rule's answers (middleware/body-rule.ts): 400 and 413. */
function withBodyRuleAnswers(paths: Paths): Paths {
  const error = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });
  const answers = {
    400: error("Malformed request (bad_request) or invalid parameter (invalid)"),
    413: error(`Request body larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB (payload_too_large)`),
  };
  for (const item of Object.values(paths)) {
    for (const operation of [item.get, item.put, item.post, item.delete, item.patch]) {
      if (!operation?.requestBody) continue;
      operation.responses = sortKeys({ ...answers, ...operation.responses });
    }
  }
  return paths;
}

function sortKeys<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as T;
}
