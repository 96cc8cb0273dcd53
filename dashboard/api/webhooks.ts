// The account's webhook endpoints: listed (never a secret), created (the secret in that answer only),
// enabled or disabled, deleted, sent a test; and each one's delivery log.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { deliveriesKey, webhooksKey } from "./keys.ts";

export type Webhook = components["schemas"]["WebhookEndpoint"];
export type WebhookDelivery = components["schemas"]["WebhookDeliveryList"]["items"][number];

const path = (id: string) => ({ params: { path: { id } } });

export const useWebhooks = () =>
  useQuery({ queryKey: webhooksKey, queryFn: () => ok(api.GET("/v1/webhooks")).then((list) => list.items) });

/** Refreshed every few seconds while shown: deliveries change as attempts are made. */
export const useDeliveries = (id: string) =>
  useQuery({ queryKey: deliveriesKey(id), queryFn: () => ok(api.GET("/v1/webhooks/{id}/deliveries", path(id))).then((list) => list.items), refetchInterval: 3_000 });

function useWebhookChange<T>(change: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: change, onSuccess: () => queryClient.invalidateQueries({ queryKey: webhooksKey }) });
}

export const useCreateWebhook = () =>
  useWebhookChange((body: { url: string; description: string }) => ok(api.POST("/v1/webhooks", { body })));

export const useSetWebhookEnabled = () =>
  useWebhookChange(({ id, enabled }: { id: string; enabled: boolean }) => ok(api.PATCH("/v1/webhooks/{id}", { ...path(id), body: { enabled } })));

export const useDeleteWebhook = () => useWebhookChange((id: string) => ok(api.DELETE("/v1/webhooks/{id}", path(id))));

export const useTestWebhook = () => useWebhookChange((id: string) => ok(api.POST("/v1/webhooks/{id}/test", path(id))));
