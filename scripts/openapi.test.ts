import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateOpenApiFiles, ROOT } from "./openapi.ts";

const generated = await generateOpenApiFiles();
const document = JSON.parse(generated["openapi.json"]) as {
  servers: { url: string }[];
  paths: Record<string, Record<string, { summary?: string; description?: string; responses: Record<string, unknown> }>>;
};
const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

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
