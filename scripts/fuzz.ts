// npm run fuzz -- [--runs N] [--seed S] [--op "POST /v1/keys"]: the API fuzz test (test/fuzz) with
// more requests or another seed than `npm test` sends. --runs is requests per operation.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { DEFAULT_FUZZ_SETTINGS } from "../test/fuzz/fuzz-settings.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: String(DEFAULT_FUZZ_SETTINGS.runs) },
    seed: { type: "string", default: String(Date.now() % 2 ** 31) },
    op: { type: "string", default: "" },
  },
});
console.log(`fuzz: ${values.runs} requests per operation, seed ${values.seed}${values.op ? `, operations matching "${values.op}"` : ""}`);
const child = spawn("vitest", ["run", "--project", "workers", "--silent=false", "test/fuzz"], {
  stdio: "inherit",
  env: { ...process.env, FUZZ_RUNS: values.runs, FUZZ_SEED: values.seed, FUZZ_OP: values.op },
});
child.on("exit", (code) => process.exit(code ?? 1));
