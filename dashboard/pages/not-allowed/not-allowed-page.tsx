// A page the member's role may not use, reached by its address: which roles it is for, and the way back.
import { DASHBOARD_ROUTE_ROLES, type GuardedRoute, type Role } from "../../api/roles.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { Link } from "../../router/router.tsx";

export function NotAllowedPage({ role, route }: { role: Role; route: GuardedRoute }) {
  return (
    <section>
      <PageTitle title="Not for your role" />
      <p role="alert">
        Your role in this account, {role}, does not allow this page: it is for the roles {DASHBOARD_ROUTE_ROLES[route].join(", ")}.{" "}
        <Link to="/">Go to the overview</Link>
      </p>
    </section>
  );
}
