// Makes a key with its scopes, expiry and instances, and shows it this once, with a copy button; it
// disappears on the next key or page.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useCreateApiKey } from "../../api/api-keys.ts";
import { CopyButton } from "../../components/copy-button.tsx";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { EXPIRIES, type Scope } from "./key-rights.ts";
import { ExpiryField, InstancesField, ScopesField } from "./key-rights-fields.tsx";

const FIELDS = ["name", "scopes", "instance_ids", "expires_at"];

export function CreateKeyForm() {
  const create = useCreateApiKey();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<readonly Scope[] | null>(null);
  const [expiry, setExpiry] = useState(0);
  const [instanceIds, setInstanceIds] = useState<readonly string[]>([]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const lifetime = EXPIRIES[expiry]!.ms;
    const body = {
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(scopes === null ? {} : { scopes: [...scopes] }),
      ...(instanceIds.length > 0 ? { instance_ids: [...instanceIds] } : {}),
      ...(lifetime === null ? {} : { expires_at: new Date(Date.now() + lifetime).toISOString() }),
    };
    create.mutate(body, { onSuccess: () => setName("") });
  };
  return (
    <>
      <form onSubmit={submit} noValidate>
        <Field label="Key name" error={fieldError(create.error, "name")} hint="Optional: where the key will be used">
          {(control) => <input {...control} type="text" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <ScopesField value={scopes} onChange={setScopes} error={fieldError(create.error, "scopes")} />
        <ExpiryField value={expiry} onChange={setExpiry} error={fieldError(create.error, "expires_at")} />
        <InstancesField value={instanceIds} onChange={setInstanceIds} error={fieldError(create.error, "instance_ids")} />
        <div>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create key
          </button>
        </div>
      </form>
      <FormError message={formError(create.error, FIELDS)} />
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
