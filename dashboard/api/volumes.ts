// Volumes: the account's list and one volume (polled, as saves and detaches change them by
// themselves), creating, growing and deleting one, saving one now, and a volume's snapshots.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { snapshotsKey, volumeKey, volumesKey } from "./keys.ts";

export type Volume = components["schemas"]["Volume"];
export type Snapshot = components["schemas"]["Snapshot"];

/** Versions grow and attachments end without the page doing anything; well within the 5 s a person waits. */
const VOLUME_POLL_MS = 3_000;

const byId = (id: string) => ({ params: { path: { id } } });

export const useVolumes = () =>
  useQuery({ queryKey: volumesKey, queryFn: () => ok(api.GET("/v1/volumes")).then((list) => list.items), refetchInterval: VOLUME_POLL_MS });

export const useVolume = (id: string) =>
  useQuery({ queryKey: volumeKey(id), queryFn: () => ok(api.GET("/v1/volumes/{id}", byId(id))), refetchInterval: VOLUME_POLL_MS });

export const useSnapshots = (id: string) =>
  useQuery({ queryKey: snapshotsKey(id), queryFn: () => ok(api.GET("/v1/volumes/{id}/snapshots", byId(id))).then((list) => list.items) });

/** Every change refreshes all volume queries: the list, each volume and their snapshots share the prefix. */
function useVolumeChange<T, R>(change: (input: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: change, onSuccess: () => queryClient.invalidateQueries({ queryKey: volumesKey }) });
}

/** An empty volume (`size_gb`), or one holding a snapshot's content (`from_snapshot`). */
export const useCreateVolume = () =>
  useVolumeChange((body: components["schemas"]["CreateVolume"]) => ok(api.POST("/v1/volumes", { body })));

export const useGrowVolume = (id: string) =>
  useVolumeChange((size_gb: number) => ok(api.PATCH("/v1/volumes/{id}", { ...byId(id), body: { size_gb } })));

/** Refreshes the list only: the deleted volume's own queries would answer 404 to the page that deleted it as it leaves. */
export function useDeleteVolume() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => ok(api.DELETE("/v1/volumes/{id}", byId(id))),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: volumesKey, exact: true }),
  });
}

/** 202: the host was asked; the version grows (and the instance's events say so) once it has stored what changed. */
export const useSaveVolume = () => useVolumeChange((id: string) => ok(api.POST("/v1/volumes/{id}/save", byId(id))));

export const useCreateSnapshot = (id: string) =>
  useVolumeChange((name: string) => ok(api.POST("/v1/volumes/{id}/snapshots", { ...byId(id), body: name ? { name } : {} })));

export const useDeleteSnapshot = (id: string) =>
  useVolumeChange((snapshotId: string) => ok(api.DELETE("/v1/volumes/{id}/snapshots/{snapshot_id}", { params: { path: { id, snapshot_id: snapshotId } } })));
