// Which registry an image reference names, and whether the host's engine may be sent there. An
// engine pulls from whatever a reference names, so a reference naming `localhost`, an IP address
// or a single-label host would make the GPU host's engine send requests into its own network (its
// metadata service, a neighbour's port): those are refused. The operator may also keep launches to
// a list of registries (IMAGE_REGISTRIES). Docker's rule decides what the first component is: a
// registry host when it holds a "." or a ":" or is "localhost", else part of a Docker Hub path.

export const DOCKER_HUB = "docker.io";

/** The registry host (with its port, if any) a reference pulls from. */
export function registryOf(image: string): string {
  const slash = image.indexOf("/");
  if (slash === -1) return DOCKER_HUB;
  const first = image.slice(0, slash);
  return first.includes(".") || first.includes(":") || first === "localhost" ? first.toLowerCase() : DOCKER_HUB;
}

/** Why a registry host may not be pulled from, or null when it may. */
export function privateRegistryRefusal(registry: string): string | null {
  const host = registry.replace(/:\d+$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return `its registry ${registry} is this host itself`;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith("[")) return `its registry ${registry} is an IP address, not a public registry's name`;
  if (!host.includes(".")) return `its registry ${registry} is a single-label name, which only a private network resolves`;
  return null;
}

/** IMAGE_REGISTRIES: the registries launches may pull from ("" or unset: any public one). */
export function allowedRegistries(setting: string | undefined): string[] | null {
  const hosts = (setting ?? "").split(",").map((host) => host.trim().toLowerCase()).filter(Boolean);
  return hosts.length > 0 ? hosts : null;
}
