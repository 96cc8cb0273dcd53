// A list read a page at a time, newest first: the API's cursor leads to older entries, and the cursors
// already followed lead back. The ledger and the audit log page the same way.
import { useState } from "react";

export interface CursorPages {
  /** This page's cursor (null: the newest page). */
  cursor: string | null;
  /** This page's number, from 1 for the newest. */
  page: number;
  older(next: string): void;
  newer(): void;
  /** Back to the newest page (a filter changed). */
  reset(): void;
}

export function useCursorPages(): CursorPages {
  // The cursors of the pages before this one; the last is this page's.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return {
    cursor: cursors.at(-1) ?? null,
    page: cursors.length,
    older: (next) => setCursors((list) => [...list, next]),
    newer: () => setCursors((list) => list.slice(0, -1)),
    reset: () => setCursors([null]),
  };
}

interface PageNavProps {
  /** The navigation's accessible name, e.g. "Ledger pages". */
  label: string;
  pages: CursorPages;
  /** The shown page's cursor to the older entries (null: none). */
  nextCursor: string | null;
  /** The shown page's query: no moving on while it fetches or shows the page before. */
  query: { isFetching: boolean; isPlaceholderData: boolean };
}

export function PageNav({ label, pages, nextCursor, query }: PageNavProps) {
  return (
    <nav aria-label={label} className="actions">
      <button type="button" disabled={pages.page === 1 || query.isFetching} onClick={pages.newer}>
        Newer entries
      </button>
      <button type="button" disabled={!nextCursor || query.isPlaceholderData} onClick={() => nextCursor && pages.older(nextCursor)}>
        Older entries
      </button>
      <span className="muted">Page {pages.page}</span>
    </nav>
  );
}
