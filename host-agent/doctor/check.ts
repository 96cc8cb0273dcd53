// One doctor check's verdict and how the report prints it: one line per check, a fix on every
// line that is not ok, and a non-zero exit when anything needed failed.
export interface CheckResult {
  /** `warn`: works, but the operator should know (e.g. disk_gb will not be enforced); does not fail doctor. */
  status: "ok" | "warn" | "fail";
  name: string;
  detail: string;
  /** How to fix it; set on every warn and fail. */
  fix?: string;
}

export const ok = (name: string, detail: string): CheckResult => ({ status: "ok", name, detail });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({ status: "warn", name, detail, fix });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ status: "fail", name, detail, fix });

export function formatReport(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  return results
    .map((r) => `${r.status.toUpperCase().padEnd(4)}  ${r.name.padEnd(width)}  ${r.detail}${r.fix ? ` — fix: ${r.fix}` : ""}\n`)
    .join("");
}

export function exitCodeOf(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === "fail") ? 1 : 0;
}
