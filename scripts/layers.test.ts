import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findViolations, readSources, relativeImports, testRunnerImports } from "./layers.ts";

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

  // Each: a tree of files and their sources, and every import the rule refuses in it, as "file -> import".
  it.each<[string, Record<string, string>, string[]]>([
    [
      "finds the proxy importing the API, the agent importing core, and a dynamic import",
      {
        "workers/proxy/proxy.ts": 'import type { ApiEnv } from "../api/context.ts";',
        "host-agent/main.ts": 'const m = await import("../core/ids.ts");',
        "protocol/codec.ts": 'export { a } from "../host-agent/x.ts";',
      },
      ["workers/proxy/proxy.ts -> workers/api/context.ts", "host-agent/main.ts -> core/ids.ts", "protocol/codec.ts -> host-agent/x.ts"],
    ],
    [
      "keeps the instance web apps' origins off the API's and the proxy's internals, on the shared Worker code",
      {
        "workers/apps/app-request.ts": 'import { x } from "../api/context.ts";\nimport { y } from "../proxy/proxy.ts";\nimport { z } from "../http/rate-limit.ts";',
      },
      ["workers/apps/app-request.ts -> workers/api/context.ts", "workers/apps/app-request.ts -> workers/proxy/proxy.ts"],
    ],
    [
      "puts the one forwarding step beneath the ways into an instance: they import it, it imports none of them",
      {
        "workers/proxy/proxy.ts": 'import { forwardToInstance } from "../forward/forward-to-instance.ts";',
        "workers/apps/app-request.ts": 'import { forwardToInstance } from "../forward/forward-to-instance.ts";',
        "workers/forward/forward-to-instance.ts": 'import { clientIp } from "../http/rate-limit.ts";\nimport { matchProxyPath } from "../proxy/proxy-path.ts";\nimport { x } from "../apps/app-cookie.ts";',
      },
      ["workers/forward/forward-to-instance.ts -> workers/proxy/proxy-path.ts", "workers/forward/forward-to-instance.ts -> workers/apps/app-cookie.ts"],
    ],
    [
      "keeps the typed client free of the service's code and the CLI on the client alone",
      {
        "client/client.ts": 'import { ApiError } from "../core/errors.ts";',
        "cli/commands/ls.ts": 'import { ok } from "../../client/index.ts";\nimport { Instance } from "../../workers/api/schemas/instance.ts";',
      },
      ["client/client.ts -> core/errors.ts", "cli/commands/ls.ts -> workers/api/schemas/instance.ts"],
    ],
    [
      "lets every layer, the CLI and the protocol included, stand on the standards' floor, which imports nothing of ours",
      {
        "cli/forward/headers.ts": 'import { hopByHopIn } from "../../standards/hop-by-hop.ts";',
        "protocol/mux/headers.ts": 'import { hopByHopIn } from "../../standards/hop-by-hop.ts";',
        "standards/hop-by-hop.ts": 'import { encodeFrame } from "../protocol/mux/frames.ts";',
      },
      ["standards/hop-by-hop.ts -> protocol/mux/frames.ts"],
    ],
    [
      "keeps the dashboard on the typed client alone, its .tsx files included",
      {
        "dashboard/api/client.ts": 'import { createGpuClient } from "../../client/index.ts";',
        "dashboard/pages/launch/launch-form.tsx": 'import { planLaunch } from "../../../workers/api/launch-rules.ts";\nimport { Field } from "../../components/field.tsx";',
      },
      ["dashboard/pages/launch/launch-form.tsx -> workers/api/launch-rules.ts"],
    ],
    [
      "keeps each object's folder private but for its entry point: what objects promise each other comes from the contracts",
      {
        "workers/main.ts": 'import { AccountDO } from "../durable-objects/account/account-do.ts";',
        "workers/api/routes/x.ts": 'import { SESSION_IDLE_MS } from "../../../durable-objects/account/sessions.ts";\nimport { y } from "../../../durable-objects/contracts/y.ts";',
        "durable-objects/email/email-do.ts": 'import { wrongLogin } from "../account/sign-in.ts";\nimport type { MachineDO } from "../machine/machine-do.ts";',
        "durable-objects/machine/proxy-admission.ts": 'import { ProxyRequest } from "../contracts/proxy-request.ts";\nimport { a } from "./account-key-sets.ts";',
        "bench/fleet/load.ts": 'import { FreeGpuIndex } from "../../durable-objects/fleet/free-gpu-index.ts";',
        "workers/proxy/proxy.test.ts": 'import { admit } from "../../durable-objects/machine/proxy-admission.ts";',
      },
      ["workers/api/routes/x.ts -> durable-objects/account/sessions.ts", "durable-objects/email/email-do.ts -> durable-objects/account/sign-in.ts", "bench/fleet/load.ts -> durable-objects/fleet/free-gpu-index.ts"],
    ],
    [
      "keeps the contracts beneath the objects: they import no object's folder",
      { "durable-objects/contracts/proxy-request.ts": 'import type { ProxyTarget } from "../machine/proxy-bridge.ts";\nimport { z } from "zod";' },
      ["durable-objects/contracts/proxy-request.ts -> durable-objects/machine/proxy-bridge.ts", "durable-objects/contracts/proxy-request.ts -> durable-objects/machine/proxy-bridge.ts"],
    ],
  ])("%s", (_, tree, found) => {
    expect(findViolations(new Map(Object.entries(tree))).map((v) => `${v.file} -> ${v.imports}`)).toEqual(found);
  });

  it("keeps dev code out of production code: only the dev entries, tests and tooling import the dev folders", () => {
    const tree = new Map([
      ["workers/main.ts", 'import { benchRoute } from "./dev/bench-routes.ts";\nimport { createWorker } from "./worker.ts";'],
      ["workers/api/app.ts", 'import { DevMachineDO } from "../dev/dev-machine-do.ts";'],
      ["host-agent/main.ts", 'import { LocalRuntime } from "./dev/local-runtime.ts";'],
      ["host-agent/agent-command.ts", 'const { parseGpuSpec } = await import("./dev/synthetic-gpus.ts");'],
      ["workers/dev/dev-main.ts", 'import { createWorker } from "../worker.ts";\nimport { benchRoute } from "./bench-routes.ts";'],
      ["host-agent/dev/dev-main.ts", 'import { runCommandLine } from "../agent-command.ts";\nimport { LocalRuntime } from "./local-runtime.ts";'],
      ["host-agent/proxy/logs-stream.test.ts", 'import { LocalRuntime } from "../dev/local-runtime.ts";'],
      ["scripts/dev/stack.ts", 'import { freeLatePort } from "../../host-agent/dev/free-port.ts";'],
    ]);
    expect(findViolations(tree)).toEqual([
      { file: "workers/main.ts", imports: "workers/dev/bench-routes.ts", rule: expect.stringContaining("production code may not import dev code") },
      { file: "workers/api/app.ts", imports: "workers/dev/dev-machine-do.ts", rule: expect.stringContaining("production code may not import dev code") },
      { file: "host-agent/main.ts", imports: "host-agent/dev/local-runtime.ts", rule: expect.stringContaining("production code may not import dev code") },
      { file: "host-agent/agent-command.ts", imports: "host-agent/dev/synthetic-gpus.ts", rule: expect.stringContaining("production code may not import dev code") },
    ]);
  });

  it("keeps the dev folders on top of their own side: the dev agent on the agent and protocol/ alone", () => {
    const tree = new Map([["host-agent/dev/dev-main.ts", 'import { x } from "../../core/ids.ts";\nimport { y } from "../../protocol/messages.ts";']]);
    expect(findViolations(tree).map((v) => `${v.file} -> ${v.imports}`)).toEqual(["host-agent/dev/dev-main.ts -> core/ids.ts"]);
  });

  it("lets only tests and tooling import a test runner", () => {
    const tree = new Map([
      ["protocol/mux/contract-suite.ts", 'import { describe, expect, it } from "vitest";'],
      ["workers/http/helper.ts", 'import { env } from "cloudflare:test";\nimport { x } from "vitest/config";'],
      ["test/support/mux/contract-suite.ts", 'import { describe } from "vitest";'],
      ["protocol/codec.test.ts", 'import { describe } from "vitest";'],
    ]);
    expect(findViolations(tree).map((v) => `${v.file} -> ${v.imports}`)).toEqual([
      "protocol/mux/contract-suite.ts -> vitest", "workers/http/helper.ts -> cloudflare:test", "workers/http/helper.ts -> vitest/config",
    ]);
    expect(testRunnerImports('import x from "vitest-like";\nimport "./vitest.ts";')).toEqual([]);
  });

  it("finds every import circle, type-only imports and longer circles included", () => {
    const tree = new Map([
      ["durable-objects/fleet/fleet-do.ts", 'import { FreeGpuIndex } from "./free-gpu-index.ts";'],
      ["durable-objects/fleet/free-gpu-index.ts", 'import type { MachineGpu } from "./fleet-do.ts";'],
      ["cli/forward/forwarder.ts", 'import { forwardUpgrade } from "./upgrade.ts";'],
      ["cli/forward/upgrade.ts", 'import { towardsClient } from "./headers.ts";'],
      ["cli/forward/headers.ts", 'import type { OpenUpstream } from "./forwarder.ts";'],
      ["core/ids.ts", 'import { sha256Hex } from "./hash.ts";'],
      ["core/hash.ts", "export const sha256Hex = 1;"],
    ]);
    expect(findViolations(tree)).toEqual([
      { file: "cli/forward/headers.ts", imports: "cli/forward/forwarder.ts", rule: "import circle: cli/forward/forwarder.ts -> cli/forward/upgrade.ts -> cli/forward/headers.ts -> cli/forward/forwarder.ts" },
      { file: "durable-objects/fleet/free-gpu-index.ts", imports: "durable-objects/fleet/fleet-do.ts", rule: "import circle: durable-objects/fleet/fleet-do.ts -> durable-objects/fleet/free-gpu-index.ts -> durable-objects/fleet/fleet-do.ts" },
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
