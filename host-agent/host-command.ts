// Runs a host tool (nvidia-smi, df, nft) and hands back what it printed, never throwing: the
// parsers and doctor's checks are pure functions of this result.
import { execFile } from "node:child_process";

export type CommandResult =
  | { ok: true; stdout: string }
  /** `missing`: the tool is not installed. `output`: what it printed (stdout, then stderr) before failing. */
  | { ok: false; missing: boolean; exitCode: number | null; output: string };

export type RunCommand = (file: string, args: readonly string[]) => Promise<CommandResult>;

export const runHostCommand: RunCommand = (file, args) =>
  new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, stdout });
      const code = (error as NodeJS.ErrnoException).code;
      resolve({
        ok: false,
        missing: code === "ENOENT",
        exitCode: typeof code === "number" ? code : null,
        output: `${stdout}${stderr}`.trim() || error.message,
      });
    });
  });

/** The first line of a failed command's output, for one-line reports. */
export function failureText(result: Extract<CommandResult, { ok: false }>): string {
  const first = result.output.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
  return result.exitCode === null ? first : `exit ${result.exitCode}: ${first}`;
}
