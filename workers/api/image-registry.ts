// Which registry an image reference names, and whether the host's engine may be sent there. An
// engine pulls from whatever a reference names, so a reference naming `localhost`, an IP address
// or a single-label host would make the GPU host's engine send requests into its own network (its
// metadata service, a neighbour's port): those are refused. The operator may also keep launches to
// a list of registries (IMAGE_REGISTRIES). Docker's rule decides what the first component is: a
// registry host when it holds a "." or a ":" or is "localhost", else part of a Docker Hub path.
// The one exception is the dev Worker's DEV_LOCAL_IMAGES (see localImagesAllowed).

export const DOCKER_HUB = "docker.io";

/** The registry host (with its port, if any) a reference pulls from. */
export function registryOf(image: string): string {
  const slash = image.indexOf("/");
  if (slash === -1) return DOCKER_HUB;
  const first = image.slice(0, slash);
  return first.includes(".") || first.includes(":") || first === "localhost" ? first.toLowerCase() : DOCKER_HUB;
}

/** Why a registry host may not be pulled from, or null when it may; `localImages`: `localhost/...` (no port) is taken. */
export function privateRegistryRefusal(registry: string, localImages = false): string | null {
  const host = registry.replace(/:\d+$/, "");
  if (localImages && registry === "localhost") return null;
  if (host === "localhost" || host.endsWith(".localhost")) return `its registry ${registry} is this host itself`;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith("[")) return `its registry ${registry} is an IP address, not a public registry's name`;
  if (!host.includes(".")) return `its registry ${registry} is a single-label name, which only a private network resolves`;
  return null;
}

/**
 * DEV_LOCAL_IMAGES "1": `localhost/NAME` images are taken, for the end-to-end test of the real agent
 * on a container engine, whose test image is built on the machine (scripts/ci/podman.sh) and which
 * the dev agent runs without a pull. A dev Worker's setting: the deployed Worker refuses to serve
 * while it is set (dev-setting-refusal.ts), as its hosts would then be sent to their own network.
 */
export function localImagesAllowed(setting: string | undefined): boolean {
  return setting === "1";
}

/** IMAGE_REGISTRIES: the registries launches may pull from ("" or unset: any public one). */
export function allowedRegistries(setting: string | undefined): string[] | null {
  const hosts = (setting ?? "").split(",").map((host) => host.trim().toLowerCase()).filter(Boolean);
  return hosts.length > 0 ? hosts : null;
}
