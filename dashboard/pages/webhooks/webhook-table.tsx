// The endpoints: URL, events, state (and why the service disabled one), with enable/disable, a test
// event, the delivery log and delete (asked in a dialog); each change for the roles that may.
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useMay } from "../../api/may.ts";
import { useDeleteWebhook, useSetWebhookEnabled, useTestWebhook, useWebhooks, type Webhook } from "../../api/webhooks.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { DeliveryLog } from "./delivery-log.tsx";

export function WebhookTable() {
  const webhooks = useWebhooks();
  const setEnabled = useSetWebhookEnabled();
  const test = useTestWebhook();
  const remove = useDeleteWebhook();
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const may = { enable: useMay("PATCH /webhooks/{id}"), test: useMay("POST /webhooks/{id}/test"), delete: useMay("DELETE /webhooks/{id}") };
  return (
    <QueryList query={webhooks} what="webhooks" empty="No endpoints yet.">
      {(list) => (
        <>
          <DataTable columns={["URL", "Events", "State", { text: "Actions", visuallyHidden: true }]} rows={list} rowKey={(w) => w.id} rowTestId="webhook-row">
            {(webhook) => (
              <>
                <td>
                  <code>{webhook.url}</code>
                  {webhook.description && <div className="muted">{webhook.description}</div>}
                </td>
                <td>{webhook.events.join(", ")}</td>
                <td data-testid="webhook-state">
                  {webhook.enabled ? "Enabled" : "Disabled"}
                  {webhook.disabled_reason && <div className="muted">{webhook.disabled_reason}</div>}
                </td>
                <td>
                  {may.enable && (
                    <button type="button" onClick={() => setEnabled.mutate({ id: webhook.id, enabled: !webhook.enabled })} disabled={setEnabled.isPending}>
                      {webhook.enabled ? "Disable" : "Enable"}
                    </button>
                  )}{" "}
                  {may.test && (
                    <button type="button" onClick={() => { test.mutate(webhook.id); setLogOf(webhook.id); }} disabled={!webhook.enabled || test.isPending}>
                      Send test
                    </button>
                  )}{" "}
                  <button type="button" onClick={() => setLogOf(logOf === webhook.id ? null : webhook.id)}>
                    Deliveries
                  </button>{" "}
                  {may.delete && (
                    <button type="button" className="danger" onClick={() => setDeleting(webhook)} disabled={remove.isPending}>
                      Delete
                    </button>
                  )}
                </td>
              </>
            )}
          </DataTable>
          <FormError message={formError(setEnabled.error ?? test.error ?? remove.error, [])} />
          {logOf && <DeliveryLog id={logOf} />}
          <ConfirmDialog
            open={deleting !== null}
            title={`Delete the endpoint ${deleting?.url ?? ""}?`}
            confirmLabel="Delete"
            onCancel={() => setDeleting(null)}
            onConfirm={() => {
              if (deleting) remove.mutate(deleting.id);
              if (deleting?.id === logOf) setLogOf(null);
              setDeleting(null);
            }}
          >
            <p>Nothing more is sent to it, not even deliveries still pending.</p>
          </ConfirmDialog>
        </>
      )}
    </QueryList>
  );
}
