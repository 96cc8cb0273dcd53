// A signed-in person who belongs to no account any more (removed from their last one): why, and the
// way out. An invitation's link still works for them (/invite).
import { useSignOut } from "../../api/account.ts";
import { formError, messageOf } from "../../api/api-errors.ts";
import { FormError } from "../../components/form-error.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { navigate } from "../../router/router.tsx";

export function NoAccountPage({ error }: { error: unknown }) {
  const signOut = useSignOut();
  return (
    <section className="narrow">
      <PageTitle title="No account" />
      <p role="alert">You are signed in, but belong to no account now: {messageOf(error)}</p>
      <p>An owner or admin of an account can invite you again; open their link to join.</p>
      <button type="button" onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate("/login", { replace: true }) })} disabled={signOut.isPending}>
        Sign out
      </button>
      <FormError message={formError(signOut.error, [])} />
    </section>
  );
}
