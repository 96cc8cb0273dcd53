// The ledger, one page per cursor (newest first; `next_cursor` leads to older entries).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { ledgerKey } from "./keys.ts";

export type LedgerEntry = components["schemas"]["LedgerPage"]["items"][number];

const LEDGER_PAGE_SIZE = 20;

export const useLedgerPage = (cursor: string | null) =>
  useQuery({
    queryKey: [...ledgerKey, cursor],
    queryFn: () => ok(api.GET("/v1/billing/ledger", { params: { query: { limit: LEDGER_PAGE_SIZE, ...(cursor ? { cursor } : {}) } } })),
    // The previous page stays on screen while the next one loads, so the buttons do not jump.
    placeholderData: keepPreviousData,
    // The newest page leads with what accrues now; reading it writes nothing, so it can follow along.
    refetchInterval: cursor === null ? 10_000 : false,
  });
