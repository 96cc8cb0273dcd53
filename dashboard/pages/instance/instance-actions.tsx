// Stop, Start and Destroy, each enabled where the API allows it and shown to the roles that may; Destroy asks first.
import { useState } from "react";
import { useInstanceAction, type Instance } from "../../api/instances.ts";
import { useMay } from "../../api/may.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { PlainFormError } from "../../components/plain-form-error.tsx";

const CAN_STOP: readonly Instance["status"][] = ["running", "starting", "creating"];
const CAN_START: readonly Instance["status"][] = ["stopped", "error"];

export function InstanceActions({ instance }: { instance: Instance }) {
  const action = useInstanceAction(instance.id);
  const [confirming, setConfirming] = useState(false);
  const busy = action.isPending;
  const may = { stop: useMay("POST /instances/{id}/stop"), start: useMay("POST /instances/{id}/start"), destroy: useMay("DELETE /instances/{id}") };
  if (!may.stop && !may.start && !may.destroy) return null;
  return (
    <div className="actions" role="group" aria-label="Instance actions">
      {may.stop && (
        <button type="button" disabled={busy || !CAN_STOP.includes(instance.status)} onClick={() => action.mutate("stop")}>
          Stop
        </button>
      )}
      {may.start && (
        <button type="button" disabled={busy || !CAN_START.includes(instance.status)} onClick={() => action.mutate("start")}>
          Start
        </button>
      )}
      {may.destroy && (
        <button type="button" className="danger" disabled={busy || instance.status === "destroyed"} onClick={() => setConfirming(true)}>
          Destroy
        </button>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Destroy ${instance.label || instance.id}?`}
        confirmLabel="Destroy"
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          action.mutate("destroy");
        }}
      >
        <p>Its container and its data are removed, and billing ends. This cannot be undone.</p>
      </ConfirmDialog>
      <PlainFormError error={action.error} fields={[]} money={{ priceHourMicros: instance.price_hour_micros }} />
    </div>
  );
}
