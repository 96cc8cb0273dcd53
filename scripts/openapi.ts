// `npm run openapi`: writes openapi.json (the API's OpenAPI 3.1 document, built from the routes' zod
// schemas without a server), client/api-types.ts (its TypeScript types, scripts/api-types.ts; not
// committed) and the reference part of docs/api.md (scripts/api-reference.ts; its introduction is
// kept as written). scripts/openapi.test.ts fails when any of them differs from what this generates.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApiApp } from "../workers/api/app.ts";
import { COMMITTED_SERVER, openApiDocument } from "../workers/api/openapi-document.ts";
import { apiMarkdown, type ApiDocument } from "./api-reference.ts";
import { apiTypes } from "./api-types.ts";

export const ROOT = join(import.meta.dirname, "..");

/** The generated files by repo-relative path. */
export async function generateOpenApiFiles(): Promise<Record<"openapi.json" | "client/api-types.ts" | "docs/api.md", string>> {
  const document = openApiDocument(createApiApp(), COMMITTED_SERVER);
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const apiDocs = apiMarkdown(readFileSync(join(ROOT, "docs/api.md"), "utf8"), JSON.parse(json) as ApiDocument);
  return { "openapi.json": json, "client/api-types.ts": await apiTypes(json), "docs/api.md": apiDocs };
}

if (import.meta.main) {
  for (const [path, text] of Object.entries(await generateOpenApiFiles())) {
    writeFileSync(join(ROOT, path), text);
    console.log(`wrote ${path}`);
  }
}
