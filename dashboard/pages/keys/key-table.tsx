// The live keys: name, prefix, what each may do and reach, its expiry, creation and last use, each with
// "Revoke" (asked in a dialog).
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useApiKeys, useRevokeApiKey, type ApiKey } from "../../api/api-keys.ts";
import { useMay } from "../../api/may.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";
import { instancesText, scopesText } from "./key-rights.ts";

export function KeyTable() {
  const keys = useApiKeys();
  const revoke = useRevokeApiKey();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const mayRevoke = useMay("DELETE /keys/{id}");
  return (
    <QueryList query={keys} what="keys" empty="No keys yet.">
      {(list) => (
        <>
          <DataTable
            columns={["Name", "Key starts with", "Scopes", "Instances", "Expires", "Created", "Last used", { text: "Revoke", visuallyHidden: true }]}
            rows={list}
            rowKey={(key) => key.id}
            rowTestId="key-row"
          >
            {(key) => (
              <>
                <td>{key.name || <span className="muted">(no name)</span>}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td data-testid="key-scopes">{scopesText(key)}</td>
                <td>{instancesText(key)}</td>
                <td data-testid="key-expires">{key.expires_at ? formatTime(key.expires_at) : "never"}</td>
                <td>{formatTime(key.created_at)}</td>
                <td>{key.last_used_at ? formatTime(key.last_used_at) : "never"}</td>
                <td>
                  {mayRevoke && (
                    <button type="button" className="danger" onClick={() => setRevoking(key)} disabled={revoke.isPending}>
                      Revoke
                    </button>
                  )}
                </td>
              </>
            )}
          </DataTable>
          <FormError message={formError(revoke.error, [])} />
          <ConfirmDialog
            open={revoking !== null}
            title={`Revoke ${revoking?.name || revoking?.prefix || "this key"}?`}
            confirmLabel="Revoke"
            onCancel={() => setRevoking(null)}
            onConfirm={() => {
              if (revoking) revoke.mutate(revoking.id);
              setRevoking(null);
            }}
          >
            <p>Programs using this key are refused from their next request, and its SSH connections and streams end. This cannot be undone.</p>
          </ConfirmDialog>
        </>
      )}
    </QueryList>
  );
}
