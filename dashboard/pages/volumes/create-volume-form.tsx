// Creates an empty volume from a name and a size; a refused name or size shows beside its field.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useCreateVolume } from "../../api/volumes.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";

export function CreateVolumeForm() {
  const create = useCreateVolume();
  const [name, setName] = useState("");
  const [sizeGb, setSizeGb] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim(), size_gb: Number(sizeGb) }, { onSuccess: () => (setName(""), setSizeGb("")) });
  };
  return (
    <>
      <form onSubmit={submit} noValidate className="inline">
        <Field label="Volume name" error={fieldError(create.error, "name")} hint="a-z, 0-9 and -, starting with a letter">
          {(control) => <input {...control} type="text" autoComplete="off" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Size (GB)" error={fieldError(create.error, "size_gb")} hint="The most it holds, 1 to 10,000; it can grow later">
          {(control) => <input {...control} type="number" inputMode="numeric" min={1} max={10_000} value={sizeGb} onChange={(e) => setSizeGb(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create volume
        </button>
      </form>
      <FormError message={formError(create.error, ["name", "size_gb"])} />
      {create.isSuccess && !create.isPending && (
        <p role="status" className="muted">
          Created {create.data.name}
        </p>
      )}
    </>
  );
}
