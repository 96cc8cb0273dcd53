// Whether the host's engine may be sent to the registry an image reference names (Docker's rule,
// standards/image-reference.ts). An engine pulls from whatever a reference names, so a reference
// naming `localhost`, an IP address or a single-label host would make the GPU host's engine send
// requests into its own network (its metadata service, a neighbour's port): those are refused.
// Launches are kept to a list of registries (IMAGE_REGISTRIES), the well-known public ones unless
// the operator says otherwise: any other name may be one whose DNS answers a private address. The
// one exception is the dev Worker's DEV_LOCAL_IMAGES (see localImagesAllowed).

/** The registries launches may pull from when IMAGE_REGISTRIES is unset or empty. */
export const DEFAULT_IMAGE_REGISTRIES = ["docker.io", "ghcr.io", "nvcr.io", "quay.io", "public.ecr.aws", "registry.k8s.io"];
/** IMAGE_REGISTRIES naming no list: any registry public by name. */
export const ANY_PUBLIC_REGISTRY = "*";

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

/** IMAGE_REGISTRIES: the registries launches may pull from ("" or unset: the default list); null for "*", any public one. */
export function allowedRegistries(setting: string | undefined): string[] | null {
  if (setting?.trim() === ANY_PUBLIC_REGISTRY) return null;
  const hosts = (setting ?? "").split(",").map((host) => host.trim().toLowerCase()).filter(Boolean);
  return hosts.length > 0 ? hosts : DEFAULT_IMAGE_REGISTRIES;
}
