// Which registry a container image reference pulls from, by Docker's rule (the distribution
// reference grammar): the first path component is a registry host when it holds a "." or a ":" or
// is "localhost", else the reference is a Docker Hub path. The API keeps launches to registries by
// this rule (workers/api/image-registry.ts) and the agent resolves the host it names before a pull
// (host-agent/runtime/registry-address.ts): both must read a reference as the engine will.

export const DOCKER_HUB = "docker.io";
/** Where the engines send Docker Hub's pulls: `docker.io` itself is not the registry's address. */
export const DOCKER_HUB_HOST = "registry-1.docker.io";

/** The registry (host, with its port if any, lowercased) a reference pulls from. */
export function registryOf(image: string): string {
  const slash = image.indexOf("/");
  if (slash === -1) return DOCKER_HUB;
  const first = image.slice(0, slash);
  return first.includes(".") || first.includes(":") || first === "localhost" ? first.toLowerCase() : DOCKER_HUB;
}

/** The host name or address the engine connects to for a registry: without its port or an IPv6 literal's brackets. */
export function registryHostOf(registry: string): string {
  if (registry === DOCKER_HUB) return DOCKER_HUB_HOST;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(registry);
  return bracketed ? bracketed[1]! : registry.replace(/:\d+$/, "");
}
