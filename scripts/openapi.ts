// `npm run openapi`: writes openapi.json (the API's OpenAPI 3.1 document, built from the routes' zod
// schemas without a server) and client/api-types.ts (its TypeScript types, by openapi-typescript).
// scripts/openapi.test.ts fails when either committed file differs from what this generates.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { createApiApp } from "../workers/api/app.ts";
import { COMMITTED_SERVER, openApiDocument } from "../workers/api/openapi-document.ts";

export const ROOT = join(import.meta.dirname, "..");

const TYPES_HEADER = "// The API's types, generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit.\n\n";

/** The generated files by repo-relative path. */
export async function generateOpenApiFiles(): Promise<Record<"openapi.json" | "client/api-types.ts", string>> {
  const document = openApiDocument(createApiApp(), COMMITTED_SERVER);
  const types = astToString(await openapiTS(document as OpenAPI3, { silent: true }));
  return { "openapi.json": `${JSON.stringify(document, null, 2)}\n`, "client/api-types.ts": TYPES_HEADER + types };
}

if (import.meta.main) {
  for (const [path, text] of Object.entries(await generateOpenApiFiles())) {
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
}
