// The account's SSH public keys: listed with their fingerprints, added from a pasted line, removed.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { sshKeysKey } from "./keys.ts";

export type SshKey = components["schemas"]["SshKey"];

export const useSshKeys = () => useQuery({ queryKey: sshKeysKey, queryFn: () => ok(api.GET("/v1/ssh-keys")).then((list) => list.items) });

export function useAddSshKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ publicKey, name }: { publicKey: string; name: string }) =>
      ok(api.POST("/v1/ssh-keys", { body: name ? { public_key: publicKey, name } : { public_key: publicKey } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sshKeysKey }),
  });
}

export function useRemoveSshKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => ok(api.DELETE("/v1/ssh-keys/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sshKeysKey }),
  });
}
