// The account's members and pending invitations: listed, an invitation made (its link in that answer
// only) or revoked, a member's role changed, a member removed.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ok } from "../../client/index.ts";
import { api } from "./client.ts";
import { invitationsKey, meKey, membersKey } from "./keys.ts";
import type { Role } from "./roles.ts";

export const useMembers = () => useQuery({ queryKey: membersKey, queryFn: () => ok(api.GET("/v1/members")).then((list) => list.items) });

export type Member = NonNullable<ReturnType<typeof useMembers>["data"]>[number];

export const useInvitations = () =>
  useQuery({ queryKey: invitationsKey, queryFn: () => ok(api.GET("/v1/members/invitations")).then((list) => list.items) });

export type Invitation = NonNullable<ReturnType<typeof useInvitations>["data"]>[number];

/** Anything that changes the members changes the invitations (one accepted) and maybe who the caller is (their own role). */
function useMemberChange<T, R>(change: (input: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSettled: () => Promise.all([membersKey, meKey].map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
  });
}

export const useInvite = () => useMemberChange((body: { email: string; role: Role }) => ok(api.POST("/v1/members/invitations", { body })));

export const useRevokeInvitation = () =>
  useMemberChange((id: string) => ok(api.DELETE("/v1/members/invitations/{id}", { params: { path: { id } } })));

export const useChangeRole = () =>
  useMemberChange(({ userId, role }: { userId: string; role: Role }) => ok(api.PATCH("/v1/members/{user_id}", { params: { path: { user_id: userId } }, body: { role } })));

export const useRemoveMember = () =>
  useMemberChange((userId: string) => ok(api.DELETE("/v1/members/{user_id}", { params: { path: { user_id: userId } } })));
