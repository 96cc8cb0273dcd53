import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findViolations, readSources, relativeImports } from "./layers.ts";

describe("the layering rule", () => {
  it("holds for the whole tree: every import points down or stays in its folder", () => {
    expect(findViolations(readSources(join(import.meta.dirname, "..")))).toEqual([]);
  });

  it("finds a planted upward import from a Durable Object into the Worker", () => {
    const tree = new Map([
      ["durable-objects/account/account-do.ts", 'import { x } from "../../workers/api/errors.ts";\nimport { y } from "../../core/errors.ts";'],
      ["core/errors.ts", "export const y = 1;"],
    ]);
    expect(findViolations(tree)).toEqual([
      { file: "durable-objects/account/account-do.ts", imports: "workers/api/errors.ts", rule: expect.stringContaining("durable-objects/ may import only") },
    ]);
  });

  it("finds the proxy importing the API, the agent importing core, and a dynamic import", () => {
    const tree = new Map([
      ["workers/proxy/proxy.ts", 'import type { ApiEnv } from "../api/context.ts";'],
      ["host-agent/main.ts", 'const m = await import("../core/ids.ts");'],
      ["protocol/codec.ts", 'export { a } from "../host-agent/x.ts";'],
    ]);
    expect(findViolations(tree).map((v) => `${v.file} -> ${v.imports}`)).toEqual([
      "workers/proxy/proxy.ts -> workers/api/context.ts",
      "host-agent/main.ts -> core/ids.ts",
      "protocol/codec.ts -> host-agent/x.ts",
    ]);
  });

  it("keeps the instance web apps' origins off the API's and the proxy's internals, on the shared Worker code", () => {
    const tree = new Map([
      ["workers/apps/app-request.ts", 'import { x } from "../api/context.ts";\nimport { y } from "../proxy/proxy.ts";\nimport { z } from "../http/rate-limit.ts";'],
    ]);
    expect(findViolations(tree).map((v) => `${v.file} -> ${v.imports}`)).toEqual([
      "workers/apps/app-request.ts -> workers/api/context.ts",
      "workers/apps/app-request.ts -> workers/proxy/proxy.ts",
    ]);
  });

  it("keeps the typed client free of the service's code and the CLI on the client alone", () => {
    const tree = new Map([
      ["client/client.ts", 'import { ApiError } from "../core/errors.ts";'],
      ["cli/commands/ls.ts", 'import { ok } from "../../client/index.ts";\nimport { Instance } from "../../workers/api/schemas/instance.ts";'],
    ]);
    expect(findViolations(tree).map((v) => `${v.file} -> ${v.imports}`)).toEqual([
      "client/client.ts -> core/errors.ts",
      "cli/commands/ls.ts -> workers/api/schemas/instance.ts",
    ]);
  });

  it("keeps the dashboard on the typed client alone, its .tsx files included", () => {
    const tree = new Map([
      ["dashboard/api/client.ts", 'import { createGpuClient } from "../../client/index.ts";'],
      ["dashboard/pages/launch/launch-form.tsx", 'import { planLaunch } from "../../../workers/api/launch-rules.ts";\nimport { Field } from "../../components/field.tsx";'],
    ]);
    expect(findViolations(tree).map((v) => `${v.file} -> ${v.imports}`)).toEqual([
      "dashboard/pages/launch/launch-form.tsx -> workers/api/launch-rules.ts",
    ]);
  });

  it("lets tests and tooling import anything, and flags a folder with no layer", () => {
    const tree = new Map([
      ["durable-objects/machine/machine-do.test.ts", 'import { call } from "../../test/support/workerd/api-client.ts";'],
      ["scripts/dev.ts", 'import { x } from "../workers/main.ts";'],
      ["gadgets/tool.ts", "export {};"],
    ]);
    expect(findViolations(tree)).toEqual([{ file: "gadgets/tool.ts", imports: "", rule: expect.any(String) }]);
  });

  it("reads import, export-from, side-effect and type imports", () => {
    const source = 'import a from "./a.ts";\nimport type { B } from "../b.ts";\nexport * from "./c.ts";\nimport "./d.ts";\nimport x from "hono";';
    expect(relativeImports("core/sub/file.ts", source)).toEqual(["core/sub/a.ts", "core/b.ts", "core/sub/c.ts", "core/sub/d.ts"]);
  });
});
