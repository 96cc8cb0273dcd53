// What the instance is: its id, GPUs, software, price, idle stop, times, host, and its own proxy token.
import type { Instance } from "../../api/instances.ts";
import { formatPerHour } from "../../format/money.ts";
import { formatTime } from "../../format/time.ts";

export function InstanceDetails({ instance }: { instance: Instance }) {
  return (
    <dl className="details">
      <dt>Instance</dt>
      <dd>
        <code>{instance.id}</code>
      </dd>
      <dt>GPUs</dt>
      <dd>
        {instance.gpu_count} × {instance.gpu_model}
      </dd>
      <dt>Template</dt>
      <dd>{instance.template}</dd>
      {instance.model && (
        <>
          <dt>Model</dt>
          <dd>{instance.model}</dd>
        </>
      )}
      <dt>Image</dt>
      <dd>
        <code>{instance.image}</code>
      </dd>
      <dt>Disk</dt>
      <dd>{instance.disk_gb} GB</dd>
      {instance.memory_gb !== null && instance.vcpus !== null && (
        <>
          <dt>Memory and CPUs</dt>
          <dd data-testid="instance-share">{instance.memory_gb} GB memory, {instance.vcpus} vCPUs</dd>
        </>
      )}
      <dt>Price</dt>
      <dd>{formatPerHour(instance.price_hour_micros)}</dd>
      <dt>Idle stop</dt>
      <dd data-testid="idle-stop">
        {instance.idle_stop_minutes === null ? "never" : `stopped after ${instance.idle_stop_minutes} min with its GPUs under 5 % and no traffic`}
      </dd>
      <dt>Created</dt>
      <dd>{formatTime(instance.created_at)}</dd>
      <dt>Started</dt>
      <dd>{instance.started_at ? formatTime(instance.started_at) : "not yet"}</dd>
      <dt>Host</dt>
      <dd>
        machine {instance.machine_id}, {instance.machine_online ? "online" : "offline"}
      </dd>
      <dt>Instance token</dt>
      <dd>
        <details>
          <summary>Show the token that opens this instance's proxy only</summary>
          <code>{instance.token}</code>
        </details>
      </dd>
    </dl>
  );
}
