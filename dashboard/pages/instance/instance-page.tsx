// /instances/:id: one instance, kept current by polling: status, details, ports, volumes, actions, a shell, metrics, events, logs.
// What the member's role may not change (rename, the shell) is not shown; a refresh that fails is said above what the page last knew.
import { useEffect } from "react";
import { useMe } from "../../api/account.ts";
import { markConnectSeen } from "../../api/first-steps.ts";
import { useInstance } from "../../api/instances.ts";
import { useMay, useMayUseShell } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { StatusBadge } from "../../components/status-badge.tsx";
import { Link } from "../../router/router.tsx";
import { InstanceActions } from "./instance-actions.tsx";
import { InstanceDetails } from "./instance-details.tsx";
import { InstanceVolumes } from "./instance-volumes.tsx";
import { LogPanel } from "./log-panel.tsx";
import { MetricsPanel } from "./metrics-panel.tsx";
import { NextSteps } from "./next-steps.tsx";
import { EventList } from "./event-list.tsx";
import { PortList } from "./port-list.tsx";
import { RenameForm } from "./rename-form.tsx";
import { TerminalPanel } from "./terminal-panel.tsx";

export function InstancePage({ id }: { id: string }) {
  const instance = useInstance(id);
  const me = useMe();
  const mayRename = useMay("PATCH /instances/{id}");
  const mayUseShell = useMayUseShell();
  const accountId = me.data?.account.id;
  useEffect(() => {
    if (accountId && instance.data?.status === "running") markConnectSeen(accountId);
  }, [accountId, instance.data?.status]);
  if (instance.isPending) return <Loading what="the instance" />;
  if (instance.isError && !instance.data) {
    return (
      <section>
        <PageTitle title="Instance" />
        <LoadError what={`instance ${id}`} error={instance.error} />
        <Link to="/instances">All instances</Link>
      </section>
    );
  }
  const data = instance.data;
  return (
    <section>
      <PageTitle title={data.label || data.id} />
      {instance.isError && <LoadError what={`instance ${id} again`} error={instance.error} />}
      <p className="status-line">
        Status: <StatusBadge status={data.status} testId="instance-status" />
        {data.status_message && <span className="muted"> {data.status_message}</span>}
      </p>
      <NextSteps instance={data} />
      <InstanceActions instance={data} />
      <InstanceDetails instance={data} />
      {mayRename && <RenameForm instance={data} />}
      <PortList instance={data} />
      <InstanceVolumes instance={data} />
      {mayUseShell && data.status !== "destroyed" && <TerminalPanel id={id} running={data.status === "running"} />}
      {data.status !== "destroyed" && <MetricsPanel id={id} />}
      <EventList id={id} />
      {data.status !== "destroyed" && <LogPanel id={id} status={data.status} />}
    </section>
  );
}
