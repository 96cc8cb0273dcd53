// What "Open" does for an instance's HTTP port, kept in this one function so that the change
// bringing app origins (each instance web app on an origin of its own, opened with a one-time
// ticket from the API) replaces only this. Until then it opens the port's proxy path in a new tab.
export const proxyPath = (instanceId: string, port: number) => `/v1/instances/${instanceId}/proxy/${port}/`;

export async function openPort(instanceId: string, port: number): Promise<void> {
  window.open(proxyPath(instanceId, port), "_blank", "noopener");
}
