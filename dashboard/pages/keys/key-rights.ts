// What a new key may hold, as the keys page offers it: the scopes (the API's list), the expiry choices
// and how a key's rights read in its row.
import type { ApiKey, NewApiKey } from "../../api/api-keys.ts";

export type Scope = Exclude<Exclude<NewApiKey["scopes"], undefined>[number], "*">;

/** The API's scopes, in its order: `write` implies `use` implies `read` within a group. */
export const SCOPES: readonly Scope[] = [
  "instances:read", "instances:use", "instances:write",
  "volumes:read", "volumes:write",
  "billing:read", "billing:write",
  "account:read", "account:write",
];

const DAY_MS = 24 * 3_600_000;

/** The expiry select's choices: how long from now (null: never). */
export const EXPIRIES: readonly { label: string; ms: number | null }[] = [
  { label: "Never", ms: null },
  { label: "7 days", ms: 7 * DAY_MS },
  { label: "30 days", ms: 30 * DAY_MS },
  { label: "90 days", ms: 90 * DAY_MS },
  { label: "1 year", ms: 365 * DAY_MS },
];

/** "All rights" or the key's scopes. */
export const scopesText = (key: Pick<ApiKey, "scopes">): string => (key.scopes.includes("*") ? "All rights" : key.scopes.join(", "));

/** "Every instance" or the ids it is kept to. */
export const instancesText = (key: Pick<ApiKey, "instance_ids">): string => key.instance_ids?.join(", ") ?? "Every instance";
