// /login: sign in with email and password.
import { useSignIn } from "../../api/account.ts";
import { CredentialsForm } from "../../components/credentials-form.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { Link } from "../../router/router.tsx";

export function LoginPage() {
  const signIn = useSignIn();
  return (
    <section className="narrow">
      <PageTitle title="Sign in" />
      <CredentialsForm mutation={signIn} submitLabel="Sign in" passwordAutocomplete="current-password" />
      <p>
        No account yet? <Link to="/signup">Create an account</Link>
      </p>
      <p className="muted">
        Rent GPU servers by the hour for model serving, notebooks and any container: <Link to="/pricing">see the GPUs and prices</Link>.
      </p>
    </section>
  );
}
