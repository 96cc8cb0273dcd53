// /settings/audit: who changed what in the account, newest first, a page at a time (cursor-pages.tsx),
// narrowed to an actor and an action.
import { useState, type FormEvent } from "react";
import { fieldError } from "../../api/api-errors.ts";
import { useAuditPage, type AuditFilter } from "../../api/audit.ts";
import { PageNav, useCursorPages } from "../../components/cursor-pages.tsx";
import { Field } from "../../components/field.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { AuditTable } from "./audit-table.tsx";

const ANY: AuditFilter = { actor: "", action: "" };

export function AuditPage() {
  const [draft, setDraft] = useState<AuditFilter>(ANY);
  const [filter, setFilter] = useState<AuditFilter>(ANY);
  const pages = useCursorPages();
  const page = useAuditPage(pages.cursor, filter);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilter({ actor: draft.actor.trim(), action: draft.action.trim() });
    pages.reset();
  };

  return (
    <section>
      <PageTitle title="Audit log" />
      <p>
        Every change to the account: by a person, an API key, the operator or the service itself (stops when the balance runs out, when idle or
        when the budget is reached), with the address it came from. Entries are kept 400 days.
      </p>
      <form onSubmit={apply} noValidate className="inline" aria-label="Filter">
        <Field label="Actor" hint="an email, a key's name, user, key, operator or system" error={fieldError(page.error, "actor")}>
          {(control) => <input {...control} value={draft.actor} onChange={(e) => setDraft({ ...draft, actor: e.target.value })} />}
        </Field>
        <Field label="Action" hint="e.g. instance.launch, or instance for all of them" error={fieldError(page.error, "action")}>
          {(control) => <input {...control} value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} />}
        </Field>
        <button type="submit">Filter</button>
      </form>
      {page.isPending && <Loading what="the audit log" />}
      {page.isError && <LoadError what="the audit log" error={page.error} />}
      {page.data?.items.length === 0 && pages.page === 1 && <p className="empty">No entries.</p>}
      {page.data && page.data.items.length > 0 && <AuditTable entries={page.data.items} />}
      <PageNav label="Audit log pages" pages={pages} nextCursor={page.data?.next_cursor ?? null} query={page} />
    </section>
  );
}
