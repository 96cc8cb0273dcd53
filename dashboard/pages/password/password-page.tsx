// /settings/password: change the password (every other session of the account ends), or sign every session out.
import { useState, type FormEvent } from "react";
import { useChangePassword, useSignOut } from "../../api/account.ts";
import { fieldError, formError } from "../../api/api-errors.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { PageTitle } from "../../components/page-title.tsx";

export function PasswordPage() {
  const change = useChangePassword();
  const signOutEverywhere = useSignOut(true);
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent("");
          setNext("");
        },
      },
    );
  };
  return (
    <section className="narrow">
      <PageTitle title="Change the password" />
      <form onSubmit={submit} noValidate>
        <Field label="Current password" error={fieldError(change.error, "current_password")}>
          {(control) => (
            <input {...control} type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
          )}
        </Field>
        <Field label="New password" error={fieldError(change.error, "new_password")} hint="12 to 128 characters">
          {(control) => <input {...control} type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />}
        </Field>
        <FormError message={formError(change.error, ["current_password", "new_password"])} />
        <button type="submit" className="primary" disabled={change.isPending}>
          Change password
        </button>
        {change.isSuccess && (
          <p role="status">Password changed. Every other session of this account has been signed out.</p>
        )}
      </form>
      <h2>Sessions</h2>
      <p>Signed in on a browser you no longer have? Sign every session of this account out, this one too. API keys stay valid.</p>
      <button type="button" disabled={signOutEverywhere.isPending} onClick={() => signOutEverywhere.mutate()}>
        Sign out everywhere
      </button>
      <FormError message={formError(signOutEverywhere.error, [])} />
    </section>
  );
}
