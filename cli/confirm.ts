// Asks before a command deletes something: on a terminal a y/N question, elsewhere `--yes` is needed
// (a script must say what it means), as gh does for deletions.
import { createInterface } from "node:readline/promises";
import { CliError } from "./errors.ts";
import type { Factory } from "./factory.ts";

export async function confirmOrRefuse(f: Factory, question: string, refusal: string, declined: string): Promise<void> {
  if (!f.io.isStdinTty || !f.io.isStderrTty) throw new CliError(refusal);
  const prompt = createInterface({ input: f.io.stdin, output: f.io.stderr });
  const answer = await prompt.question(`${question} [y/N] `);
  prompt.close();
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError(declined);
}
