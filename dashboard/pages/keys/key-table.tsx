// The live keys: name, prefix, creation and last use, each with "Revoke" (asked in a dialog).
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useRevokeApiKey, type ApiKey } from "../../api/api-keys.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { FormError } from "../../components/form-error.tsx";
import { formatTime } from "../../format/time.ts";

export function KeyTable({ keys }: { keys: ApiKey[] }) {
  const revoke = useRevokeApiKey();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key starts with</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} data-testid="key-row">
              <td>{key.name || <span className="muted">(no name)</span>}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{formatTime(key.created_at)}</td>
              <td>{key.last_used_at ? formatTime(key.last_used_at) : "never"}</td>
              <td>
                <button type="button" className="danger" onClick={() => setRevoking(key)} disabled={revoke.isPending}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
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
        <p>Programs using this key are refused from their next request. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
