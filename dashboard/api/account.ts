// Who is signed in (GET /v1/me, null when no session) and the session's mutations: sign up, sign
// in, sign out, change the password.
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
 * The signed-in account and its balance, or null. Every balance read settles billing (a ledger
 * charge per running instance), so it is read about as often as billing settles anyway: once a minute.
 */
export const useMe = () => useQuery({ queryKey: meKey, queryFn: fetchMe, staleTime: 30_000, refetchInterval: 60_000 });

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

/** Nothing of one account stays in the cache for the next (or for whoever uses the browser next). */
function switchAccount(queryClient: QueryClient, me: Me | null): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== meKey[0] });
  queryClient.setQueryData(meKey, me);
}
