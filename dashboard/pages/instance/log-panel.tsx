// The container's logs on the instance page: the last lines, refreshed on demand, or followed live.
import { useEffect, useState } from "react";
import { messageOf } from "../../api/api-errors.ts";
import { followLogs, readLogTail } from "../../api/logs.ts";
import { FormError } from "../../components/form-error.tsx";

const TAIL = 200;
/** Lines kept on the page while following: older ones scroll off. */
const KEPT_LINES = 1_000;

/** `status` re-reads the logs when the instance changes state (a container that starts has new lines). */
export function LogPanel({ id, status }: { id: string; status: string }) {
  const [lines, setLines] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [follow, setFollow] = useState(false);
  const [reads, setReads] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setError(null);
    const failed = (failure: unknown) => {
      if (!abort.signal.aborted) setError(messageOf(failure));
    };
    if (follow) {
      setLines([]);
      followLogs(id, TAIL, ({ line }) => setLines((kept) => [...(kept ?? []), line].slice(-KEPT_LINES)), abort.signal)
        .then(() => !abort.signal.aborted && setFollow(false), failed);
    } else {
      readLogTail(id, TAIL, abort.signal).then((tail) => !abort.signal.aborted && setLines(tail), failed);
    }
    return () => abort.abort();
  }, [id, status, follow, reads]);

  return (
    <>
      <h2>Logs</h2>
      <div className="log-controls">
        <label>
          <input type="checkbox" checked={follow} onChange={(event) => setFollow(event.target.checked)} /> Follow logs
        </label>
        <button type="button" onClick={() => setReads((n) => n + 1)} disabled={follow}>
          Refresh logs
        </button>
      </div>
      <FormError message={error} />
      {error === null && lines === null && <p className="muted">Loading the logs…</p>}
      {error === null && lines?.length === 0 && <p className="empty">{follow ? "Waiting for new lines…" : "No lines yet."}</p>}
      {lines !== null && lines.length > 0 && (
        <pre className="logs" role="log" aria-label="Container logs" data-testid="logs">
          {lines.join("\n")}
        </pre>
      )}
    </>
  );
}
