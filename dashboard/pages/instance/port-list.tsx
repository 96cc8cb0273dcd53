// The instance's ports: what each serves, whether it answers yet, its proxy address, and "Open" (its
// web app) for HTTP ports, to the roles that may use it.
import { useState } from "react";
import { messageOf } from "../../api/api-errors.ts";
import type { Instance } from "../../api/instances.ts";
import { useMay } from "../../api/may.ts";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { formatTime } from "../../format/time.ts";
import { openPort, proxyPath } from "./open-port.ts";

export function PortList({ instance }: { instance: Instance }) {
  const [error, setError] = useState<string | null>(null);
  const mayOpen = useMay("POST /instances/{id}/ports/{port}/open");
  const open = (port: number) => {
    setError(null);
    openPort(instance.id, port).catch((failure: unknown) => setError(messageOf(failure)));
  };
  return (
    <>
      <h2>Ports</h2>
      {instance.ports.length === 0 ? (
        <p className="empty">This instance publishes no ports.</p>
      ) : (
        <>
          <DataTable
            columns={["Port", "Serves", "Ready", "Proxy address", { text: "Open", visuallyHidden: true }]}
            rows={instance.ports}
            rowKey={(port) => port.port}
            rowTestId="port"
          >
            {(port) => (
              <>
                <td>{port.port}</td>
                <td>
                  {port.name} ({port.api})
                </td>
                <td data-testid="port-ready">{port.ready && port.ready_at ? `since ${formatTime(port.ready_at)}` : instance.status === "running" ? "not yet" : "—"}</td>
                <td>
                  <code>{window.location.origin + proxyPath(instance.id, port.port)}</code>
                </td>
                <td>
                  {mayOpen && port.kind === "http" && (
                    <button type="button" onClick={() => open(port.port)} disabled={instance.status !== "running"} aria-describedby="open-port-note">
                      Open
                    </button>
                  )}
                </td>
              </>
            )}
          </DataTable>
          <p id="open-port-note" className="note">
            Open shows the port's web app (Jupyter, ComfyUI ...) in a new tab, on an address of its own, for up to 12 hours while the
            instance runs. Programs use the proxy address with an API key (<code>Authorization: Bearer</code>).
          </p>
        </>
      )}
      <FormError message={error} />
    </>
  );
}
