// Makes a new volume holding one of this volume's snapshots (its size this volume's), then shows it.
// A taken name or a snapshot gone meanwhile is said beside its field.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useCreateVolume, type Snapshot } from "../../api/volumes.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { navigate } from "../../router/router.tsx";

export function SnapshotCopyForm({ snapshots }: { snapshots: Snapshot[] }) {
  const create = useCreateVolume();
  const [snapshotId, setSnapshotId] = useState(snapshots[0]?.id ?? "");
  const [name, setName] = useState("");
  const chosen = snapshots.some((snapshot) => snapshot.id === snapshotId) ? snapshotId : (snapshots[0]?.id ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim(), from_snapshot: chosen }, { onSuccess: (volume) => navigate(`/volumes/${volume.id}`) });
  };
  return (
    <>
      <h3>A new volume from a snapshot</h3>
      <form onSubmit={submit} noValidate className="inline">
        <Field label="Snapshot" error={fieldError(create.error, "from_snapshot")}>
          {(control) => (
            <select {...control} value={chosen} onChange={(e) => setSnapshotId(e.target.value)}>
              {snapshots.map((snapshot) => (
                <option key={snapshot.id} value={snapshot.id}>
                  {snapshot.name} (version {snapshot.version})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="New volume name" error={fieldError(create.error, "name")} hint="It holds the snapshot's content, as its version 1">
          {(control) => <input {...control} type="text" autoComplete="off" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={create.isPending}>
          Create volume from snapshot
        </button>
      </form>
      <FormError message={formError(create.error, ["from_snapshot", "name"])} />
    </>
  );
}
