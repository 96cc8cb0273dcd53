// One page of audit entries: when, who (and from where), what was done to what, and how.
import type { AuditEntry } from "../../api/audit.ts";
import { DataTable } from "../../components/data-table.tsx";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";

/** The pages a target has in the dashboard. */
const TARGET_PAGES: Record<string, (id: string) => string> = {
  instance: (id) => `/instances/${id}`,
  volume: (id) => `/volumes/${id}`,
};

export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <DataTable columns={["When", "Who", "Action", "Target", "Detail", "From"]} rows={entries} rowKey={(entry) => entry.id} rowTestId="audit-row">
      {(entry) => (
        <>
          <td>{formatTime(entry.at)}</td>
          <td title={entry.actor.id ?? undefined}>
            {entry.actor.type === "key" ? `key ${entry.actor.label}` : entry.actor.label}
          </td>
          <td>
            <code>{entry.action}</code>
          </td>
          <td>{entry.target.id && <Target type={entry.target.type} id={entry.target.id} />}</td>
          <td>{entry.detail}</td>
          <td>{entry.ip ?? ""}</td>
        </>
      )}
    </DataTable>
  );
}

function Target({ type, id }: { type: string; id: string }) {
  const page = TARGET_PAGES[type];
  return page ? (
    <Link to={page(id)}>
      <code>{id}</code>
    </Link>
  ) : (
    <code>{id}</code>
  );
}
