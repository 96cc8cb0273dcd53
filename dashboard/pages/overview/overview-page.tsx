// /: the balance, a new account's first steps, the running instances and what they cost per hour together.
import { useMe } from "../../api/account.ts";
import { useInstances } from "../../api/instances.ts";
import { useMay } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { formatDollars, formatPerHour } from "../../format/money.ts";
import { Link } from "../../router/router.tsx";
import { GuidedStart } from "./guided-start.tsx";
import { RunningList } from "./running-list.tsx";

export function OverviewPage() {
  const me = useMe();
  const instances = useInstances();
  const mayLaunch = useMay("POST /instances");
  const running = instances.data?.filter((instance) => instance.status === "running") ?? [];
  const perHour = running.reduce((sum, instance) => sum + instance.price_hour_micros, 0);

  return (
    <section>
      <PageTitle title="Overview" />
      <dl className="summary">
        <div>
          <dt>Balance</dt>
          <dd data-testid="balance">{me.data ? formatDollars(me.data.balance_micros) : "…"}</dd>
        </div>
        <div>
          <dt>Running instances</dt>
          <dd>{instances.data ? running.length : "…"}</dd>
        </div>
        <div>
          <dt>Total per hour</dt>
          <dd data-testid="total-per-hour">{instances.data ? formatPerHour(perHour) : "…"}</dd>
        </div>
      </dl>
      {me.data && instances.data && <GuidedStart me={me.data} instances={instances.data} />}
      <h2>Running now</h2>
      {instances.isPending && <Loading what="instances" />}
      {instances.isError && <LoadError what="instances" error={instances.error} />}
      {instances.data && running.length === 0 && (
        <p className="empty">
          Nothing is running.{mayLaunch && <> <Link to="/launch">Launch an instance</Link></>}
        </p>
      )}
      {running.length > 0 && <RunningList instances={running} />}
      <p>
        <Link to="/instances">All instances</Link>
      </p>
    </section>
  );
}
