// One endpoint's last 100 deliveries: event, status, attempts, the last answer and the next attempt.
import { useDeliveries } from "../../api/webhooks.ts";
import { DataTable } from "../../components/data-table.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";

export function DeliveryLog({ id }: { id: string }) {
  const deliveries = useDeliveries(id);
  return (
    <section aria-label="Deliveries">
      <h2>Deliveries of {id}</h2>
      <QueryList query={deliveries} what="deliveries" empty="No deliveries yet.">
        {(list) => (
          <DataTable columns={["Event", "Status", "Attempts", "Last answer", "Next attempt", "Created"]} rows={list} rowKey={(d) => d.id} rowTestId="delivery-row">
            {(delivery) => (
              <>
                <td>
                  {delivery.type} <code className="muted">{delivery.event_id}</code>
                </td>
                <td data-testid="delivery-status">{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td>{delivery.last_error ?? (delivery.last_status_code === null ? "—" : `HTTP ${delivery.last_status_code}`)}</td>
                <td>{delivery.next_attempt_at ? formatTime(delivery.next_attempt_at) : "—"}</td>
                <td>{formatTime(delivery.created_at)}</td>
              </>
            )}
          </DataTable>
        )}
      </QueryList>
    </section>
  );
}
