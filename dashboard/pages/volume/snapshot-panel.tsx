// A volume's snapshots, newest first: taking one of the latest version (named, or `v` and its version),
// deleting one (asked in a dialog; the data only it kept is freed), and making a new volume of one; each
// for the roles that may.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useMay } from "../../api/may.ts";
import { useCreateSnapshot, useDeleteSnapshot, useSnapshots, type Snapshot, type Volume } from "../../api/volumes.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatBytes } from "../../format/bytes.ts";
import { formatTime } from "../../format/time.ts";
import { SnapshotCopyForm } from "./snapshot-copy-form.tsx";

export function SnapshotPanel({ volume }: { volume: Volume }) {
  const snapshots = useSnapshots(volume.id);
  const create = useCreateSnapshot(volume.id);
  const remove = useDeleteSnapshot(volume.id);
  const [name, setName] = useState("");
  const [deleting, setDeleting] = useState<Snapshot | null>(null);
  const may = { take: useMay("POST /volumes/{id}/snapshots"), delete: useMay("DELETE /volumes/{id}/snapshots/{snapshot_id}"), copy: useMay("POST /volumes") };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim(), { onSuccess: () => setName("") });
  };
  return (
    <>
      <h2>Snapshots</h2>
      <p className="note">A snapshot keeps the latest version as it is now, whatever the volume saves after; its data is stored once with the volume's.</p>
      {may.take && (
        <form onSubmit={submit} noValidate className="inline">
          <Field label="Snapshot name" error={fieldError(create.error, "name")} hint={`Optional: v${volume.version} if left empty`}>
            {(control) => <input {...control} type="text" value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <button type="submit" disabled={create.isPending}>
            Take snapshot
          </button>
        </form>
      )}
      <FormError message={formError(create.error, ["name"])} />
      <QueryList query={snapshots} what="snapshots" empty="No snapshots yet.">
        {(list) => (
          <>
            <DataTable
              columns={["Name", "Version", "Stored", "Taken", { text: "Delete", visuallyHidden: true }]}
              rows={list}
              rowKey={(snapshot) => snapshot.id}
              rowTestId="snapshot-row"
            >
              {(snapshot) => (
                <>
                  <td>{snapshot.name}</td>
                  <td>{snapshot.version}</td>
                  <td>{formatBytes(snapshot.stored_bytes)}</td>
                  <td>{formatTime(snapshot.created_at)}</td>
                  <td>
                    {may.delete && (
                      <button type="button" className="danger" onClick={() => setDeleting(snapshot)} disabled={remove.isPending}>
                        Delete
                      </button>
                    )}
                  </td>
                </>
              )}
            </DataTable>
            {may.copy && <SnapshotCopyForm snapshots={list} />}
          </>
        )}
      </QueryList>
      <FormError message={formError(remove.error, [])} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete snapshot ${deleting?.name ?? ""}?`}
        confirmLabel="Delete"
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) remove.mutate(deleting.id);
          setDeleting(null);
        }}
      >
        <p>The data only this snapshot kept is freed. The volume itself is unchanged.</p>
      </ConfirmDialog>
    </>
  );
}
