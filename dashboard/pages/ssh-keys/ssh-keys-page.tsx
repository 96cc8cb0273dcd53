// /settings/ssh-keys: add an SSH public key, see the account's keys and their fingerprints, remove one (adding and removing for the roles that may).
import { useMay } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { AddSshKeyForm } from "./add-ssh-key-form.tsx";
import { SshKeyTable } from "./ssh-key-table.tsx";

export function SshKeysPage() {
  const mayAdd = useMay("POST /ssh-keys");
  return (
    <section>
      <PageTitle title="SSH keys" />
      <p>
        Any of these keys opens a shell on your running instances with <code>gpu ssh &lt;id&gt;</code>, and works with <code>scp</code>,{" "}
        <code>rsync</code> and VS Code through <code>gpu ssh-config</code>. Only public keys are sent here.
      </p>
      {mayAdd && <AddSshKeyForm />}
      <h2>Your keys</h2>
      <SshKeyTable />
    </section>
  );
}
