// Makes a key and shows it this once, with a copy button; it disappears on the next key or page.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useCreateApiKey } from "../../api/api-keys.ts";
import { CopyButton } from "../../components/copy-button.tsx";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";

export function CreateKeyForm() {
  const create = useCreateApiKey();
  const [name, setName] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim(), { onSuccess: () => setName("") });
  };
  return (
    <>
      <form onSubmit={submit} noValidate className="inline">
        <Field label="Key name" error={fieldError(create.error, "name")} hint="Optional: where the key will be used">
          {(control) => <input {...control} type="text" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <FormError message={formError(create.error, ["name"])} />
      {create.data && (
        <div className="new-key" role="region" aria-label="New key">
          <p>
            Your new key <strong>{create.data.name || create.data.prefix}</strong>. Copy it now: it is not shown again.
          </p>
          <code data-testid="new-key">{create.data.key}</code> <CopyButton text={create.data.key} label="Copy key" />
        </div>
      )}
    </>
  );
}
