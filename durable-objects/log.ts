// Structured logs of the Durable Objects: one JSON line each.
export function log(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ level, msg, ...fields }));
}
