// Adds an endpoint and shows its signing secret this once, with a copy button.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useCreateWebhook } from "../../api/webhooks.ts";
import { CopyButton } from "../../components/copy-button.tsx";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";

export function CreateWebhookForm() {
  const create = useCreateWebhook();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ url: url.trim(), description: description.trim() }, { onSuccess: () => { setUrl(""); setDescription(""); } });
  };
  const created = create.data as { id: string; secret: string } | undefined;
  return (
    <>
      <form onSubmit={submit} noValidate className="inline">
        <Field label="Endpoint URL" error={fieldError(create.error, "url")} hint="https://…, where events are POSTed">
          {(control) => <input {...control} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}
        </Field>
        <Field label="Description" error={fieldError(create.error, "description")} hint="Optional">
          {(control) => <input {...control} type="text" value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <button type="submit" className="primary" disabled={create.isPending}>
          Add endpoint
        </button>
      </form>
      <FormError message={formError(create.error, ["url", "description"])} />
      {created && (
        <div className="new-key" role="region" aria-label="New signing secret">
          <p>The signing secret of {created.id}. Copy it now: it is not shown again.</p>
          <code data-testid="webhook-secret">{created.secret}</code> <CopyButton text={created.secret} label="Copy secret" />
        </div>
      )}
    </>
  );
}
