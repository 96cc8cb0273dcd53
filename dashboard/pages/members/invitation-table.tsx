// The pending invitations: email, role, when made and until when the link works, each with "Revoke"
// (its link stops working at once).
import { formError } from "../../api/api-errors.ts";
import { useInvitations, useRevokeInvitation } from "../../api/members.ts";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";

export function InvitationTable() {
  const invitations = useInvitations();
  const revoke = useRevokeInvitation();
  return (
    <QueryList query={invitations} what="invitations" empty="No invitations pending.">
      {(list) => (
        <>
          <DataTable
            columns={["Email", "Role", "Invited", "Link works until", { text: "Revoke", visuallyHidden: true }]}
            rows={list}
            rowKey={(invitation) => invitation.id}
            rowTestId="invitation-row"
          >
            {(invitation) => (
              <>
                <td>{invitation.email}</td>
                <td>{invitation.role}</td>
                <td>{formatTime(invitation.created_at)}</td>
                <td>{formatTime(invitation.expires_at)}</td>
                <td>
                  <button type="button" className="danger" onClick={() => revoke.mutate(invitation.id)} disabled={revoke.isPending}>
                    Revoke
                  </button>
                </td>
              </>
            )}
          </DataTable>
          <FormError message={formError(revoke.error, [])} />
        </>
      )}
    </QueryList>
  );
}
