// What a page shows while its data loads, or when loading failed, so no page is ever blank.
import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { messageOf } from "../api/api-errors.ts";

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

export function LoadError({ what, error }: { what: string; error: unknown }) {
  return (
    <p role="alert" className="form-error">
      Could not load {what}: {messageOf(error)}
    </p>
  );
}

interface QueryListProps<Item> {
  query: UseQueryResult<Item[]>;
  /** What is loading, in "Loading {what}…" and "Could not load {what}". */
  what: string;
  /** Said when the list has no items, e.g. "No keys yet." */
  empty: string;
  /** The items, when there are some. */
  children: (items: Item[]) => ReactNode;
}

/** A list read by one query: loading, failed, empty, or its items (still shown if a later refresh fails). */
export function QueryList<Item>({ query, what, empty, children }: QueryListProps<Item>) {
  return (
    <>
      {query.isPending && <Loading what={what} />}
      {query.isError && <LoadError what={what} error={query.error} />}
      {query.data?.length === 0 && <p className="empty">{empty}</p>}
      {query.data && query.data.length > 0 && children(query.data)}
    </>
  );
}
