// The members: email, role (a select where the signed-in manager may change it), when they joined and
// were last seen, each with "Remove" (asked in a dialog: their sessions lose the account at once, and
// the API keys they made are revoked).
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useChangeRole, useMembers, useRemoveMember, type Member } from "../../api/members.ts";
import type { Role } from "../../api/roles.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatTime } from "../../format/time.ts";
import { mayChange, rolesToGive } from "./member-rules.ts";

interface MemberTableProps {
  /** The signed-in person (their row says "you") and their role here. */
  me: { userId: string | null; role: Role };
}

export function MemberTable({ me }: MemberTableProps) {
  const members = useMembers();
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  const [removing, setRemoving] = useState<Member | null>(null);
  return (
    <QueryList query={members} what="members" empty="No members.">
      {(list) => (
        <>
          <DataTable
            columns={["Email", "Role", "Joined", "Last seen", { text: "Remove", visuallyHidden: true }]}
            rows={list}
            rowKey={(member) => member.user_id}
            rowTestId="member-row"
          >
            {(member) => {
              const changeable = mayChange(me.role, member.role);
              return (
                <>
                  <td>
                    {member.email}
                    {member.user_id === me.userId && <span className="muted"> (you)</span>}
                  </td>
                  <td>
                    {changeable ? (
                      <select
                        aria-label={`Role of ${member.email}`}
                        value={member.role}
                        disabled={changeRole.isPending}
                        onChange={(event) => changeRole.mutate({ userId: member.user_id, role: event.target.value as Role })}
                      >
                        {rolesToGive(me.role).map((role) => (
                          <option key={role} value={role}>
                            {role}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span data-testid="member-role">{member.role}</span>
                    )}
                  </td>
                  <td>{formatTime(member.joined_at)}</td>
                  <td>{member.last_seen_at ? formatTime(member.last_seen_at) : "never"}</td>
                  <td>
                    {changeable && (
                      <button type="button" className="danger" onClick={() => setRemoving(member)} disabled={remove.isPending}>
                        Remove
                      </button>
                    )}
                  </td>
                </>
              );
            }}
          </DataTable>
          <FormError message={formError(changeRole.error ?? remove.error, [])} />
          <ConfirmDialog
            open={removing !== null}
            title={`Remove ${removing?.email ?? "this member"}?`}
            confirmLabel="Remove"
            onCancel={() => setRemoving(null)}
            onConfirm={() => {
              if (removing) remove.mutate(removing.user_id);
              setRemoving(null);
            }}
          >
            <p>They lose this account at once: their sessions are refused from their next request, and the API keys they made are revoked.</p>
          </ConfirmDialog>
        </>
      )}
    </QueryList>
  );
}
