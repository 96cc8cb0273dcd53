// Query keys, one per resource; invalidating a prefix refreshes everything beneath it.
export const meKey = ["me"] as const;
export const instancesKey = ["instances"] as const;
export const instanceKey = (id: string) => ["instances", id] as const;
export const eventsKey = (id: string) => ["instances", id, "events"] as const;
export const apiKeysKey = ["api-keys"] as const;
export const ledgerKey = ["ledger"] as const;
export const usageKey = ["usage"] as const;
export const paymentConfigKey = ["payment-config"] as const;
export const pricingKey = ["pricing"] as const;
export const gpusKey = ["gpus"] as const;
export const catalogKey = ["catalog"] as const;
export const metricsKey = (id: string, window: string) => ["instances", id, "metrics", window] as const;
export const webhooksKey = ["webhooks"] as const;
export const deliveriesKey = (id: string) => ["webhooks", id, "deliveries"] as const;
export const sshKeysKey = ["ssh-keys"] as const;
export const volumesKey = ["volumes"] as const;
export const volumeKey = (id: string) => ["volumes", id] as const;
export const snapshotsKey = (id: string) => ["volumes", id, "snapshots"] as const;
