// Adds a public key pasted from ~/.ssh/id_ed25519.pub; a refused key's reason shows under the field.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useAddSshKey } from "../../api/ssh-keys.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";

export function AddSshKeyForm() {
  const add = useAddSshKey();
  const [publicKey, setPublicKey] = useState("");
  const [name, setName] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ publicKey, name: name.trim() }, { onSuccess: () => (setPublicKey(""), setName("")) });
  };
  return (
    <>
      <form onSubmit={submit} noValidate>
        <Field label="Public key" error={fieldError(add.error, "public_key")} hint={<>The line in <code>~/.ssh/id_ed25519.pub</code></>}>
          {(control) => <textarea {...control} rows={3} spellCheck={false} value={publicKey} onChange={(e) => setPublicKey(e.target.value)} />}
        </Field>
        <Field label="Key name" error={fieldError(add.error, "name")} hint="Optional: the key's comment when left empty">
          {(control) => <input {...control} type="text" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={add.isPending}>
          Add key
        </button>
      </form>
      <FormError message={formError(add.error, ["public_key", "name"])} />
    </>
  );
}
