// /settings/keys: create an API key (its key shown this once), see the live ones, revoke one (creating and revoking for the roles that may).
import { useMay } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { CreateKeyForm } from "./create-key-form.tsx";
import { KeyTable } from "./key-table.tsx";

export function KeysPage() {
  const mayCreate = useMay("POST /keys");
  return (
    <section>
      <PageTitle title="API keys" />
      <p>
        A key lets a program act for your account: send it as <code>Authorization: Bearer &lt;key&gt;</code>. Only a hash is stored, so the
        key is shown once, when it is made. Give a key only the scopes, instances and lifetime its program needs; it never holds more
        than your role.
      </p>
      {mayCreate && <CreateKeyForm />}
      <h2>Live keys</h2>
      <KeyTable />
    </section>
  );
}
