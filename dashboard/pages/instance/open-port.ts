// What "Open" does for an instance's HTTP port: asks the API for the address of the port's web app
// on an origin of its own (with a one-time ticket, turned into the app's session by its first
// request) and opens it in a new tab. The app's JavaScript runs there, never on the dashboard's origin.
import { ok } from "../../../client/index.ts";
import { api } from "../../api/client.ts";

export const proxyPath = (instanceId: string, port: number) => `/v1/instances/${instanceId}/proxy/${port}/`;

export async function openPort(instanceId: string, port: number): Promise<void> {
  const { url } = await ok(api.POST("/v1/instances/{id}/ports/{port}/open", { params: { path: { id: instanceId, port } } }));
  // Nothing of the dashboard for the app: no window.opener, no Referer.
  window.open(url, "_blank", "noopener,noreferrer");
}
