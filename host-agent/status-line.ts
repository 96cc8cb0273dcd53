// What an instance's status_message may say of a failure: one line of bounded length. A failure's
// message can carry what a registry or the engine sent back (Docker quotes a registry's error body
// into its pull error), and a tenant chooses the registry: the first line alone, cut to
// STATUS_LINE_CHARS, goes to the control plane and the tenant; the agent's log keeps it whole.

export const STATUS_LINE_CHARS = 300;

/** The first non-empty line of `message`, at most STATUS_LINE_CHARS long (an ellipsis marks a cut). */
export function statusLine(message: string): string {
  const first = message.split(/\r\n|\r|\n/).find((line) => line.trim() !== "")?.trim() ?? "";
  const cut = first.length > STATUS_LINE_CHARS || first !== message.trim();
  return cut ? `${first.slice(0, STATUS_LINE_CHARS - 1)}…` : first;
}
