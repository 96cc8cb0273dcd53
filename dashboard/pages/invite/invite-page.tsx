// /invite#<token>: an invitation's link. A signed-in person joins with "Join" (the invitation must be
// for their email); anyone else sets a password, which makes them a person with the invitation's email
// and a member at once ("Create account and join"), or signs in first if they already have one.
import { useState, type FormEvent } from "react";
import { useAcceptInvitation, useMe } from "../../api/account.ts";
import { fieldError, formError, isForbidden } from "../../api/api-errors.ts";
import { Field } from "../../components/field.tsx";
import { FormError } from "../../components/form-error.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { Link, navigate } from "../../router/router.tsx";
import { forgetInvitationToken, invitationToken } from "./invitation-token.ts";

export function InvitePage() {
  const me = useMe();
  const accept = useAcceptInvitation();
  const [token] = useState(invitationToken);
  const [password, setPassword] = useState("");
  // Signed in: with an account, or a person whose every account is gone (their /me is 403), who may still join.
  const signedIn = Boolean(me.data) || isForbidden(me.error);
  const join = (body: { token: string; password?: string }) =>
    accept.mutate(body, {
      onSuccess: () => {
        forgetInvitationToken();
        navigate("/", { replace: true });
      },
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (token) join(signedIn ? { token } : { token, password });
  };

  if (!token) {
    return (
      <section className="narrow">
        <PageTitle title="Invitation" />
        <p role="alert">This address holds no invitation: open the whole link you were sent.</p>
      </section>
    );
  }
  return (
    <section className="narrow">
      <PageTitle title="Join an account" />
      <form onSubmit={submit} noValidate>
        {signedIn ? (
          <p>
            You are signed in{me.data?.user ? ` as ${me.data.user.email}` : ""}. Join the account you were invited to, with the role the
            invitation gives: it is added to your accounts, and the switcher in the header moves between them.
          </p>
        ) : (
          <>
            <p>You were invited to an account. Choose a password: you sign in with the email the invitation was sent to.</p>
            <Field label="Password" error={fieldError(accept.error, "password")} hint="12 to 128 characters">
              {(control) => (
                <input {...control} type="password" name="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
              )}
            </Field>
          </>
        )}
        <FormError message={formError(accept.error, signedIn ? [] : ["password"])} />
        <button type="submit" className="primary" disabled={accept.isPending}>
          {signedIn ? "Join" : "Create account and join"}
        </button>
      </form>
      {!signedIn && (
        <p>
          Already have an account with that email? <Link to="/login?next=%2Finvite">Sign in</Link>, then join.
        </p>
      )}
    </section>
  );
}
