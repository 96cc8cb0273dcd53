// Who is signed in (GET /v1/me, null when no session) and the session's mutations: sign up, sign
// in, sign out, change the password, switch to another of the person's accounts, accept an invitation.
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { isUnauthorized } from "./api-errors.ts";
import { api } from "./client.ts";
import { meKey } from "./keys.ts";

export type Me = components["schemas"]["Me"];
type Credentials = components["schemas"]["Credentials"];
type PasswordChange = components["schemas"]["PasswordChange"];

async function fetchMe(): Promise<Me | null> {
  try {
    return await ok(api.GET("/v1/me"));
  } catch (error) {
    if (isUnauthorized(error)) return null;
    throw error;
  }
}

/**
 * The signed-in person, their current account and its balance, or null. Every balance read settles
 * billing (a ledger charge per running instance), so it is read about as often as billing settles
 * anyway: once a minute. A session whose account changed meanwhile (switched in another tab, or moved
 * to another of the person's accounts as they were removed from this one) drops what the cache held
 * of the account before.
 */
export function useMe() {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: meKey,
    queryFn: async () => {
      const me = await fetchMe();
      const before = queryClient.getQueryData<Me | null>(meKey);
      if (before && me && before.account.id !== me.account.id) switchAccount(queryClient, me);
      return me;
    },
    staleTime: 30_000,
    refetchInterval: 60_000,
  });
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Credentials) => ok(api.POST("/v1/auth/login", { body })),
    onSuccess: (me) => switchAccount(queryClient, me),
  });
}

export function useSignUp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Credentials) => ok(api.POST("/v1/auth/signup", { body })),
    onSuccess: (me) => switchAccount(queryClient, me),
  });
}

/** Signs this browser out; `everywhere`: every session of the account, on every browser. */
export function useSignOut(everywhere = false) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => ok(api.POST(everywhere ? "/v1/auth/logout-all" : "/v1/auth/logout")),
    onSuccess: () => switchAccount(queryClient, null),
  });
}

export const useChangePassword = () =>
  useMutation({ mutationFn: (body: PasswordChange) => ok(api.POST("/v1/auth/password", { body })) });

/** Makes another of the signed-in person's accounts the session's current one, and reads everything again for it. */
export function useSwitchAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (accountId: string) => ok(api.POST("/v1/auth/switch", { body: { account_id: accountId } })),
    onSuccess: (me) => switchAccount(queryClient, me),
  });
}

/** Joins the account an invitation is for: as the signed-in person, or as a new person with `password`. */
export function useAcceptInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { token: string; password?: string }) => ok(api.POST("/v1/auth/accept-invitation", { body })),
    onSuccess: (me) => switchAccount(queryClient, me),
  });
}

/** Nothing of one account stays in the cache for the next (or for whoever uses the browser next). */
function switchAccount(queryClient: QueryClient, me: Me | null): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== meKey[0] });
  queryClient.setQueryData(meKey, me);
}
