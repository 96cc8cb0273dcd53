// Writes client/api-types.ts, the API's TypeScript types, from the committed openapi.json
// (openapi-typescript). The file is generated, not committed: `npm install` writes it (the
// `prepare` script), and `npm run openapi` rewrites it with openapi.json.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";

const ROOT = join(import.meta.dirname, "..");
export const API_TYPES_PATH = "client/api-types.ts";

const TYPES_HEADER = "// The API's types, generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit.\n\n";

/** The types of an OpenAPI document, as client/api-types.ts holds them. */
export async function apiTypes(documentJson: string): Promise<string> {
  return TYPES_HEADER + astToString(await openapiTS(JSON.parse(documentJson) as OpenAPI3, { silent: true }));
}

if (import.meta.main) {
  const path = join(ROOT, API_TYPES_PATH);
  const types = await apiTypes(readFileSync(join(ROOT, "openapi.json"), "utf8"));
  // Written only when it changes: `prepare` runs again on every `npx gpu` in the repo, and a newer
  // file makes `npm run dev` take the dashboard for stale and build it again.
  if (!existsSync(path) || readFileSync(path, "utf8") !== types) {
    writeFileSync(path, types);
    console.log(`wrote ${API_TYPES_PATH}`);
  }
}
