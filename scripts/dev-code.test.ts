// Finding dev code in a built bundle: by the files it was built from and by the strings only dev code has.
import { describe, expect, it } from "vitest";
import { devCodeIn } from "./dev-code.ts";

describe("devCodeIn", () => {
  it("names each dev source a bundle was built from and each dev marker in its text", () => {
    const bundle = {
      sources: ["../../repo/workers/main.ts", "../../repo/workers/dev/bench-routes.ts", "host-agent/dev/local-runtime.ts", "host-agent/main.ts"],
      text: 'if (env.BENCH_ROUTES !== "1") return null;\nconst uuid = `GPU-local-${index}`;',
    };
    expect(devCodeIn(bundle)).toEqual([
      "built from ../../repo/workers/dev/bench-routes.ts",
      "built from host-agent/dev/local-runtime.ts",
      'contains "BENCH_ROUTES"',
      'contains "GPU-local-"',
    ]);
  });

  it("finds nothing in production code, nor in a dev-looking folder of a dependency", () => {
    expect(devCodeIn({ sources: ["workers/main.ts", "node_modules/hono/dist/dev/index.js", "scripts/dev/stack.ts"], text: "export default createWorker();" })).toEqual([]);
  });
});
