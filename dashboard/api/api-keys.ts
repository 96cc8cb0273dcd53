// The account's API keys: the live ones (never the key itself), creating one with its scopes, instances
// and expiry (its key is in that answer only) and revoking one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { apiKeysKey } from "./keys.ts";

export type ApiKey = components["schemas"]["KeyList"]["items"][number];
export type NewApiKey = components["schemas"]["CreateKey"];

export const useApiKeys = () =>
  useQuery({ queryKey: apiKeysKey, queryFn: () => ok(api.GET("/v1/keys")).then((list) => list.items) });

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewApiKey) => ok(api.POST("/v1/keys", { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysKey }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => ok(api.DELETE("/v1/keys/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeysKey }),
  });
}
