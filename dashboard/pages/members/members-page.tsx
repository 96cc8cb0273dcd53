// /settings/members, for owners and admins: invite a person (the link shown to copy), the pending
// invitations, and the members with their roles.
import { useMe } from "../../api/account.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { InvitationTable } from "./invitation-table.tsx";
import { InviteForm } from "./invite-form.tsx";
import { MemberTable } from "./member-table.tsx";
import { rolesToGive } from "./member-rules.ts";

export function MembersPage() {
  const me = useMe();
  if (!me.data) return null;
  const role = me.data.account.role;
  return (
    <section>
      <PageTitle title="Members" />
      <p>
        Everyone here signs in as themselves and acts with their role: <strong>owner</strong> (everything), <strong>admin</strong> (everything
        but changing owners), <strong>developer</strong> (instances, volumes, their own API keys; reads billing), <strong>billing</strong>{" "}
        (payments; reads the rest), <strong>viewer</strong> (reads, changes nothing).
      </p>
      <h2>Invite</h2>
      <InviteForm roles={rolesToGive(role)} />
      <h2>Pending invitations</h2>
      <InvitationTable />
      <h2>Members</h2>
      <MemberTable me={{ userId: me.data.user?.id ?? null, role }} />
    </section>
  );
}
