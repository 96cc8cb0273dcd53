// An instance's status as a word with a colour class; the word alone carries the meaning.
import type { Instance } from "../api/instances.ts";

export function StatusBadge({ status, testId }: { status: Instance["status"]; testId?: string }) {
  return (
    <span className={`status status-${status}`} data-testid={testId}>
      {status}
    </span>
  );
}
