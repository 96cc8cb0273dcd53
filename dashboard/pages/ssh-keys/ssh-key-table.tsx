// The account's SSH keys: name, type, fingerprint, when added and last used (to the minute), each with "Remove" (asked in a dialog).
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useMay } from "../../api/may.ts";
import { useRemoveSshKey, useSshKeys, type SshKey } from "../../api/ssh-keys.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";

export function SshKeyTable() {
  const keys = useSshKeys();
  const remove = useRemoveSshKey();
  const [removing, setRemoving] = useState<SshKey | null>(null);
  const mayRemove = useMay("DELETE /ssh-keys/{id}");
  return (
    <QueryList query={keys} what="SSH keys" empty="No SSH keys yet.">
      {(list) => (
        <>
          <DataTable
            columns={["Name", "Type", "Fingerprint", "Added", "Last used", { text: "Remove", visuallyHidden: true }]}
            rows={list}
            rowKey={(key) => key.id}
            rowTestId="ssh-key-row"
          >
            {(key) => (
              <>
                <td>{key.name || <span className="muted">(no name)</span>}</td>
                <td>{key.type}</td>
                <td>
                  <code>{key.fingerprint}</code>
                </td>
                <td>{formatTime(key.created_at)}</td>
                <td>{key.last_used_at ? formatTime(key.last_used_at) : "never"}</td>
                <td>
                  {mayRemove && (
                    <button type="button" className="danger" onClick={() => setRemoving(key)} disabled={remove.isPending}>
                      Remove
                    </button>
                  )}
                </td>
              </>
            )}
          </DataTable>
          <FormError message={formError(remove.error, [])} />
          <ConfirmDialog
            open={removing !== null}
            title={`Remove ${removing?.name || removing?.fingerprint || "this key"}?`}
            confirmLabel="Remove"
            onCancel={() => setRemoving(null)}
            onConfirm={() => {
              if (removing) remove.mutate(removing.id);
              setRemoving(null);
            }}
          >
            <p>New SSH connections with this key are refused, and those open with it end.</p>
          </ConfirmDialog>
        </>
      )}
    </QueryList>
  );
}
