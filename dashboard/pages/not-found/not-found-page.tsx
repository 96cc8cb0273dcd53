// Any other path: say so, and lead back.
import { PageTitle } from "../../components/page-title.tsx";
import { Link } from "../../router/router.tsx";

export function NotFoundPage() {
  return (
    <section>
      <PageTitle title="Page not found" />
      <p>
        There is no page at this address. <Link to="/">Go to the overview</Link>
      </p>
    </section>
  );
}
