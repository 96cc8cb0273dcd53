// Instances: the list, one instance and its events (polled, so status and events update by
// themselves), and the mutations (launch, rename, stop, start, destroy) that refresh them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ok, type Instance, type LaunchRequest } from "../../client/index.ts";
import { api } from "./client.ts";
import { eventsKey, instanceKey, instancesKey, meKey } from "./keys.ts";

export type { Instance };

/** How often a page showing an instance asks again: well within the 5 s a person waits. */
const INSTANCE_POLL_MS = 2_000;
/**
 * The list is read often only while an instance is on its way up: every list read settles billing,
 * writing a ledger charge per running instance, and running or stopped instances change status by
 * themselves only rarely (a host gone, the balance spent).
 */
const LIST_POLL_MS = { changing: 3_000, settled: 30_000 };
const CHANGING: readonly Instance["status"][] = ["creating", "starting"];

const byId = (id: string) => ({ params: { path: { id } } });

export const useInstances = () =>
  useQuery({
    queryKey: instancesKey,
    queryFn: () => ok(api.GET("/v1/instances")).then((list) => list.items),
    refetchInterval: (query) =>
      query.state.data?.some((instance) => CHANGING.includes(instance.status)) ? LIST_POLL_MS.changing : LIST_POLL_MS.settled,
  });

export const useInstance = (id: string) =>
  useQuery({ queryKey: instanceKey(id), queryFn: () => ok(api.GET("/v1/instances/{id}", byId(id))), refetchInterval: INSTANCE_POLL_MS });

export const useEvents = (id: string) =>
  useQuery({
    queryKey: eventsKey(id),
    queryFn: () => ok(api.GET("/v1/instances/{id}/events", byId(id))).then((list) => list.items),
    refetchInterval: INSTANCE_POLL_MS,
  });

/** Anything that changes an instance changes the lists, its events and, through billing, the balance. */
function useInvalidateInstances() {
  const queryClient = useQueryClient();
  return () => Promise.all([queryClient.invalidateQueries({ queryKey: instancesKey }), queryClient.invalidateQueries({ queryKey: meKey })]);
}

export function useLaunch() {
  const invalidate = useInvalidateInstances();
  return useMutation({ mutationFn: (body: LaunchRequest) => ok(api.POST("/v1/instances", { body })), onSuccess: invalidate });
}

export function useRename(id: string) {
  const invalidate = useInvalidateInstances();
  return useMutation({
    mutationFn: (label: string) => ok(api.PATCH("/v1/instances/{id}", { ...byId(id), body: { label } })),
    onSuccess: invalidate,
  });
}

type InstanceAction = "stop" | "start" | "destroy";

export function useInstanceAction(id: string) {
  const invalidate = useInvalidateInstances();
  return useMutation({
    mutationFn: (action: InstanceAction) => {
      if (action === "stop") return ok(api.POST("/v1/instances/{id}/stop", byId(id)));
      if (action === "start") return ok(api.POST("/v1/instances/{id}/start", byId(id)));
      return ok(api.DELETE("/v1/instances/{id}", byId(id)));
    },
    onSuccess: invalidate,
  });
}
