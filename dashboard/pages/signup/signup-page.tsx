// /signup: a new account from an email and a password.
import { useSignUp } from "../../api/account.ts";
import { CredentialsForm } from "../../components/credentials-form.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { Link } from "../../router/router.tsx";

export function SignupPage() {
  const signUp = useSignUp();
  return (
    <section className="narrow">
      <PageTitle title="Create an account" />
      <CredentialsForm mutation={signUp} submitLabel="Create account" passwordAutocomplete="new-password" fieldOfCode={{ conflict: "email" }} />
      <p>
        Already have one? <Link to="/login">Sign in</Link>
      </p>
      <p className="muted">
        Rent GPU servers by the hour for model serving, notebooks and any container: <Link to="/pricing">see the GPUs and prices</Link>.
      </p>
    </section>
  );
}
