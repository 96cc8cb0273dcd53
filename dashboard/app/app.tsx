// The dashboard's frame: who is signed in decides between the sign-in pages and the signed-in ones
// (each under the navigation); a page that needs a session sends a signed-out visitor to /login, and a
// person who belongs to no account any more (removed from their last) is told so.
import { useMe } from "../api/account.ts";
import { isForbidden } from "../api/api-errors.ts";
import { LoadError, Loading } from "../components/query-state.tsx";
import { NoAccountPage } from "../pages/no-account/no-account-page.tsx";
import { NotFoundPage } from "../pages/not-found/not-found-page.tsx";
import { Redirect, useLocation } from "../router/router.tsx";
import { pageAfterSignIn } from "./after-sign-in.ts";
import { Layout } from "./layout.tsx";
import { findPage, OPEN_ROUTES, PUBLIC_ROUTES, SIGNED_IN_ROUTES } from "./routes.tsx";

export function App() {
  const location = useLocation();
  const path = location.split("?")[0]!;
  const me = useMe();

  if (me.isPending) return <Loading what="your account" />;
  const openPage = findPage(OPEN_ROUTES, path);
  if (me.isError && isForbidden(me.error)) return <main className="signed-out">{openPage ?? <NoAccountPage error={me.error} />}</main>;
  if (me.isError) return <LoadError what="your account" error={me.error} />;

  if (openPage) return me.data ? <Layout me={me.data}>{openPage}</Layout> : <main className="signed-out">{openPage}</main>;
  const publicPage = findPage(PUBLIC_ROUTES, path);
  if (!me.data) {
    if (publicPage) return <main className="signed-out">{publicPage}</main>;
    return <Redirect to={path === "/" ? "/login" : `/login?next=${encodeURIComponent(location)}`} />;
  }
  if (publicPage) return <Redirect to={pageAfterSignIn(location)} />;
  return <Layout me={me.data}>{findPage(SIGNED_IN_ROUTES, path, me.data.account.role) ?? <NotFoundPage />}</Layout>;
}
