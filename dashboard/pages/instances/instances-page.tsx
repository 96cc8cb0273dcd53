// /instances: every instance of the account, newest first (destroyed ones stay listed for 7 days).
import { useInstances } from "../../api/instances.ts";
import { useMay } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { Link } from "../../router/router.tsx";
import { InstanceTable } from "./instance-table.tsx";

export function InstancesPage() {
  const instances = useInstances();
  const mayLaunch = useMay("POST /instances");
  return (
    <section>
      <PageTitle title="Instances" />
      {mayLaunch && (
        <p>
          <Link to="/launch" className="button primary">
            Launch an instance
          </Link>
        </p>
      )}
      <QueryList query={instances} what="instances" empty="No instances yet.">
        {(list) => <InstanceTable instances={list} />}
      </QueryList>
    </section>
  );
}
