import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateOpenApiFiles, ROOT } from "./openapi.ts";

interface Schema {
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}
type Content = Record<string, { schema?: Schema }>;
interface Operation {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; description?: string }[];
  requestBody?: { content: Content };
  responses: Record<string, { content?: Content; headers?: Record<string, { description?: string }> }>;
}

const generated = await generateOpenApiFiles();
const document = JSON.parse(generated["openapi.json"]) as {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

/** Where `schema` and the schemas inside it have a property without a description, each as `where.name`. */
function undescribedProperties(schema: Schema | undefined, where: string): string[] {
  if (!schema) return [];
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, property]) => [
    ...(property.description?.trim() ? [] : [`${where}.${name}`]),
    ...undescribedProperties(property, `${where}.${name}`),
  ]);
  const parts = [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  const additional = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
  return [
    ...own,
    ...undescribedProperties(schema.items, `${where}[]`),
    ...undescribedProperties(additional, `${where}{}`),
    ...parts.flatMap((part) => undescribedProperties(part, where)),
  ];
}

/** Every property, parameter and response header of the document that has no description (or an empty one). */
function undescribed(): string[] {
  const inSchemas = Object.entries(document.components.schemas).flatMap(([name, schema]) => undescribedProperties(schema, name));
  const inOperations = operations.flatMap(({ path, method, op }) => {
    const at = `${method.toUpperCase()} ${path}`;
    const bodies = (content: Content | undefined, where: string) =>
      Object.values(content ?? {}).flatMap(({ schema }) => undescribedProperties(schema, where));
    return [
      ...(op.parameters ?? []).filter((parameter) => !parameter.description?.trim()).map((parameter) => `${at} ${parameter.in} parameter ${parameter.name}`),
      ...bodies(op.requestBody?.content, `${at} request body`),
      ...Object.entries(op.responses).flatMap(([status, response]) => [
        ...bodies(response.content, `${at} ${status} body`),
        ...Object.entries(response.headers ?? {}).filter(([, header]) => !header.description?.trim()).map(([name]) => `${at} ${status} header ${name}`),
      ]),
    ];
  });
  return [...inSchemas, ...inOperations];
}

describe("the committed OpenAPI document and client types", () => {
  it.each(Object.keys(generated))("%s is what the code generates (else run `npm run openapi` and commit)", (path) => {
    const committed = readFileSync(join(ROOT, path), "utf8");
    expect(committed === generated[path as keyof typeof generated], `${path} is stale: run \`npm run openapi\` and commit the result`).toBe(true);
  });

  it("names the local stack as its fixed server", () => {
    expect(document.servers).toEqual([{ url: "http://127.0.0.1:8787", description: expect.any(String) }]);
  });

  it("gives every operation a summary, a description and its error responses", () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, method, op } of operations) {
      expect(op.summary, `${method} ${path} summary`).toMatch(/\w/);
      expect(op.description, `${method} ${path} description`).toMatch(/\w/);
      expect(Object.keys(op.responses).filter((status) => /^4\d\d$/.test(status)), `${method} ${path} errors`).not.toEqual([]);
    }
  });

  it("describes every property, parameter and response header", () => {
    expect(undescribed(), "give each a description with .openapi({ description }), or param.description for a parameter").toEqual([]);
  });

  it("documents the proxy as a path of its own for every method, WebSocket upgrade on GET", () => {
    const proxy = document.paths["/v1/instances/{id}/proxy/{port}/{path}"]!;
    expect(Object.keys(proxy).sort()).toEqual(["delete", "get", "head", "options", "patch", "post", "put"]);
    expect(Object.keys(proxy.get!.responses).sort()).toEqual(["101", "400", "401", "404", "409", "413", "429", "502", "default"]);
  });

  it("sorts paths, so a new route lands in a predictable place", () => {
    const paths = Object.keys(document.paths);
    expect(paths).toEqual([...paths].sort());
  });
});
