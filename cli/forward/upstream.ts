// What the forwarder and its upgrade path share: the instance port being forwarded, and how a request
// to the service's path proxy is opened (plain requests and upgrades alike).
import type { request as httpRequest } from "node:http";

export interface ForwardTarget {
  apiUrl: string;
  apiKey: string;
  instanceId: string;
  port: number;
}

/** How to open a request to the service, for plain requests and upgrades alike. */
export type OpenUpstream = (path: string, method: string, headers: string[]) => ReturnType<typeof httpRequest>;
