// The email and password form of sign-in and sign-up; the API's message appears beside the field
// it names, or under the form (a wrong password, too many attempts).
import { useState, type FormEvent } from "react";
import type { UseMutationResult } from "@tanstack/react-query";
import { GpuApiError } from "../../client/index.ts";
import { fieldError, formError } from "../api/api-errors.ts";
import type { Me } from "../api/account.ts";
import { Field } from "./field.tsx";
import { FormError } from "./form-error.tsx";

type Credentials = { email: string; password: string };

interface CredentialsFormProps {
  mutation: UseMutationResult<Me, Error, Credentials>;
  submitLabel: string;
  passwordAutocomplete: "current-password" | "new-password";
  /** Extra placement of an error by its code, e.g. sign-up's "email taken" (409) beside Email. */
  fieldOfCode?: Record<string, "email" | "password">;
}

export function CredentialsForm({ mutation, submitLabel, passwordAutocomplete, fieldOfCode = {} }: CredentialsFormProps) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const error = mutation.error;
  const codeField = error instanceof GpuApiError ? fieldOfCode[error.error] : undefined;
  const beside = (field: "email" | "password") => (codeField === field ? error!.message : fieldError(error, field));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Once signed in, the app leaves the sign-in pages by itself (app.tsx).
    mutation.mutate({ email, password });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Field label="Email" error={beside("email")}>
        {(control) => (
          <input {...control} type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        )}
      </Field>
      <Field label="Password" error={beside("password")} hint={passwordAutocomplete === "new-password" ? "12 to 128 characters" : undefined}>
        {(control) => (
          <input
            {...control}
            type="password"
            name="password"
            autoComplete={passwordAutocomplete}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <FormError message={codeField ? null : formError(error, ["email", "password"])} />
      <button type="submit" className="primary" disabled={mutation.isPending}>
        {submitLabel}
      </button>
    </form>
  );
}
