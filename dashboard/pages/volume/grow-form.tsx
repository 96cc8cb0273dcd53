// Grows the volume: a new size in GB, at least the one it has (the API says so beside the field otherwise).
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useGrowVolume, type Volume } from "../../api/volumes.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";

export function GrowForm({ volume }: { volume: Volume }) {
  const grow = useGrowVolume(volume.id);
  const [sizeGb, setSizeGb] = useState(String(volume.size_gb));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    grow.mutate(Number(sizeGb));
  };
  return (
    <form onSubmit={submit} noValidate className="inline">
      <Field label="New size (GB)" error={fieldError(grow.error, "size_gb")} hint="A volume only grows">
        {(control) => (
          <input {...control} type="number" inputMode="numeric" min={volume.size_gb} max={10_000} value={sizeGb} onChange={(e) => setSizeGb(e.target.value)} />
        )}
      </Field>
      <button type="submit" disabled={grow.isPending}>
        Grow
      </button>
      <FormError message={formError(grow.error, ["size_gb"])} />
      {grow.isSuccess && !grow.isPending && (
        <span role="status" className="muted">
          Now {grow.data.size_gb} GB
        </span>
      )}
    </form>
  );
}
