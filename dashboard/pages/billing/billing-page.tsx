// /billing: the balance, this month's usage (per day, per instance and per volume), and the ledger, newest first,
// a page at a time (cursor-pages.tsx). "Add funds" and the monthly budget for the roles that pay.
import { useMe } from "../../api/account.ts";
import { useLedgerPage } from "../../api/ledger.ts";
import { useMay } from "../../api/may.ts";
import { useMonthUsage } from "../../api/usage.ts";
import { PageNav, useCursorPages } from "../../components/cursor-pages.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { formatDollars } from "../../format/money.ts";
import { AddFunds, PaymentStatus } from "./add-funds.tsx";
import { BudgetForm } from "./budget-form.tsx";
import { LedgerTable } from "./ledger-table.tsx";
import { UsageByDay } from "./usage-by-day.tsx";
import { UsageByInstance } from "./usage-by-instance.tsx";
import { UsageByVolume } from "./usage-by-volume.tsx";

export function BillingPage() {
  const me = useMe();
  const mayPay = useMay("POST /billing/checkout");
  const mayBudget = useMay("PATCH /account");
  const pages = useCursorPages();
  const page = useLedgerPage(pages.cursor);
  const byDay = useMonthUsage("day");
  const byInstance = useMonthUsage("instance");

  return (
    <section>
      <PageTitle title="Billing" />
      <p>
        Balance: <strong>{me.data ? formatDollars(me.data.balance_micros) : "…"}</strong>. Instances are billed by the millisecond while they run,
        volumes by the bytes they keep; the ledger shows one charge per instance and hour and one storage entry per volume and hour, led by what
        has accrued since the last settlement.
      </p>
      <PaymentStatus />
      {mayPay && <AddFunds />}
      {mayBudget && me.data && (
        <>
          <h2>Monthly budget</h2>
          <BudgetForm me={me.data} />
        </>
      )}
      <h2>This month</h2>
      {(byDay.isPending || byInstance.isPending) && <Loading what="this month's usage" />}
      {byDay.isError && <LoadError what="this month's usage" error={byDay.error} />}
      {byInstance.data?.items.length === 0 && byInstance.data.storage.length === 0 && <p className="empty">Nothing has run or been stored this month.</p>}
      {byInstance.data && (byInstance.data.items.length > 0 || byInstance.data.storage.length > 0) && (
        <>
          <p>
            Charged so far: <strong data-testid="usage-total">{formatDollars(byInstance.data.total_micros)}</strong>
          </p>
          {byDay.data && <UsageByDay items={byDay.data.items} storage={byDay.data.storage} />}
          {byInstance.data.items.length > 0 && <UsageByInstance items={byInstance.data.items} />}
          {byInstance.data.storage.length > 0 && (
            <>
              <h3>Storage</h3>
              <UsageByVolume items={byInstance.data.storage} />
            </>
          )}
        </>
      )}
      <h2>Ledger</h2>
      {page.isPending && <Loading what="the ledger" />}
      {page.isError && <LoadError what="the ledger" error={page.error} />}
      {page.data?.items.length === 0 && pages.page === 1 && <p className="empty">No entries yet.</p>}
      {page.data && page.data.items.length > 0 && <LedgerTable entries={page.data.items} />}
      <PageNav label="Ledger pages" pages={pages} nextCursor={page.data?.next_cursor ?? null} query={page} />
    </section>
  );
}
