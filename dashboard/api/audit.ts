// The audit log, one page per cursor (newest first; `next_cursor` leads to older entries), filtered by actor and action.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { auditKey } from "./keys.ts";

export type AuditEntry = components["schemas"]["AuditPage"]["items"][number];

/** What the page is narrowed to: an actor (type, id, email or key name) and an action (or its group); "" for any. */
export interface AuditFilter {
  actor: string;
  action: string;
}

const AUDIT_PAGE_SIZE = 50;

export const useAuditPage = (cursor: string | null, filter: AuditFilter) =>
  useQuery({
    queryKey: [...auditKey, filter, cursor],
    queryFn: () =>
      ok(api.GET("/v1/audit-log", {
        params: {
          query: {
            limit: AUDIT_PAGE_SIZE,
            ...(cursor ? { cursor } : {}),
            ...(filter.actor ? { actor: filter.actor } : {}),
            ...(filter.action ? { action: filter.action } : {}),
          },
        },
      })),
    placeholderData: keepPreviousData,
  });
