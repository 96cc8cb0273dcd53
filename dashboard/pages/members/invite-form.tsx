// Invites a person by email with a role, and shows the invitation's link this once, to copy and send
// them: it works once, for that email, for 7 days.
import { useState, type FormEvent } from "react";
import { fieldError, formError } from "../../api/api-errors.ts";
import { useInvite } from "../../api/members.ts";
import type { Role } from "../../api/roles.ts";
import { CopyButton } from "../../components/copy-button.tsx";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { formatTime } from "../../format/time.ts";

export function InviteForm({ roles }: { roles: readonly Role[] }) {
  const invite = useInvite();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("developer");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate({ email: email.trim(), role }, { onSuccess: () => setEmail("") });
  };
  const sent = invite.data;
  return (
    <>
      <form onSubmit={submit} noValidate className="inline" aria-label="Invite">
        <Field label="Email" error={fieldError(invite.error, "email")}>
          {(control) => <input {...control} type="email" value={email} onChange={(e) => setEmail(e.target.value)} />}
        </Field>
        <Field label="Role" error={fieldError(invite.error, "role")}>
          {(control) => (
            <select {...control} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {roles.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" className="primary" disabled={invite.isPending}>
          Invite
        </button>
      </form>
      <FormError message={formError(invite.error, ["email", "role"])} />
      {sent?.url && (
        <div className="new-key" role="region" aria-label="Invitation link">
          <p>
            Send this link to {sent.email} ({sent.role}). It works once, for that email only, until {formatTime(sent.expires_at)}; it is not
            shown again.
          </p>
          <code data-testid="invitation-url">{sent.url}</code> <CopyButton text={sent.url} />
        </div>
      )}
    </>
  );
}
