// Renames the instance (its label); the API's message appears beside the field.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useRename, type Instance } from "../../api/instances.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";

export function RenameForm({ instance }: { instance: Instance }) {
  const rename = useRename(instance.id);
  const [label, setLabel] = useState(instance.label);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(label);
  };
  return (
    <form onSubmit={submit} noValidate className="inline">
      <Field label="Label" error={fieldError(rename.error, "label")}>
        {(control) => <input {...control} type="text" value={label} onChange={(e) => setLabel(e.target.value)} />}
      </Field>
      <button type="submit" disabled={rename.isPending || instance.status === "destroyed"}>
        Rename
      </button>
      <FormError message={formError(rename.error, ["label"])} />
      {rename.isSuccess && !rename.isPending && (
        <span role="status" className="muted">
          Renamed
        </span>
      )}
    </form>
  );
}
