// The signed-in frame: the service's name, the navigation (the pages the member's role may use), who is
// signed in, the account switcher and "Sign out"; the budget's banner once this month's spend is half of it.
import type { ReactNode } from "react";
import { useSignOut, type Me } from "../api/account.ts";
import { formError } from "../api/api-errors.ts";
import { FormError } from "../components/form-error.tsx";
import { Link, navigate } from "../router/router.tsx";
import { AccountSwitcher } from "./account-switcher.tsx";
import { BudgetBanner } from "./budget-banner.tsx";
import { mayOpen, SIGNED_IN_ROUTES } from "./routes.tsx";

export function Layout({ me, children }: { me: Me; children: ReactNode }) {
  const signOut = useSignOut();
  return (
    <>
      <header className="top">
        <Link to="/" className="brand" aria-label="GPU rental, overview">
          GPU rental
        </Link>
        <nav aria-label="Main">
          <ul>
            {SIGNED_IN_ROUTES.filter((route) => route.nav && mayOpen(route, me.account.role)).map((route) => (
              <li key={route.path}>
                <Link to={route.path}>{route.nav}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span className="muted">{me.user?.email ?? me.account.email ?? me.account.id}</span>
          <AccountSwitcher me={me} />
          <button type="button" onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate("/login", { replace: true }) })} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </header>
      <FormError message={formError(signOut.error, [])} />
      <BudgetBanner me={me} />
      <main>{children}</main>
    </>
  );
}
