// Whether the host's engine may be sent to an image's registry, judged by the addresses its name
// resolves to. The API keeps launches to registries by name (IMAGE_REGISTRIES; never localhost, an
// IP address or a single-label host), but a name is only what its DNS answers: `127.0.0.1.nip.io`,
// or any domain its owner points at 10.0.0.5, would send the engine, which the tenant firewall does
// not cover, into the host's own network, and bring the answers back in the pull's error. So before
// a pull the agent resolves the registry's host, every address, and refuses the pull when any of them
// is not public. A name whose answer changes between this lookup and the engine's own (DNS
// rebinding) gets past this check: the egress guard for dockerd's pulls stops that (docs/deploy.md).
import { lookup } from "node:dns/promises";
import { BlockList, isIPv6 } from "node:net";
import { registryHostOf, registryOf } from "../../standards/image-reference.ts";

/** Every address a registry's host resolves to (IPv4 and IPv6); rejects when it does not resolve. */
export type RegistryLookup = (host: string) => Promise<string[]>;

/** The system's resolver, as the engine uses it: all answers, in its order. */
export const lookupAllAddresses: RegistryLookup = async (host) => (await lookup(host, { all: true, verbatim: true })).map((answer) => answer.address);

/** The kinds of address no registry is pulled from, each with its ranges (an IPv4-mapped IPv6 address counts as its IPv4 one). */
const NOT_PUBLIC: readonly [kind: string, ranges: readonly string[]][] = [
  ["unspecified", ["0.0.0.0/8", "::/128"]],
  ["loopback", ["127.0.0.0/8", "::1/128"]],
  ["private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]],
  ["carrier-grade NAT", ["100.64.0.0/10"]],
  ["link-local", ["169.254.0.0/16", "fe80::/10"]],
  ["multicast", ["224.0.0.0/4", "ff00::/8"]],
  ["reserved", ["240.0.0.0/4"]],
];

const KINDS = NOT_PUBLIC.map(([kind, ranges]) => {
  const list = new BlockList();
  for (const range of ranges) {
    const [network = "", prefix = ""] = range.split("/");
    list.addSubnet(network, Number(prefix), isIPv6(network) ? "ipv6" : "ipv4");
  }
  return { kind, list };
});

/** What kind of address that is not public `address` is ("loopback", "private" ...), or null for a public one. */
export function nonPublicKind(address: string): string | null {
  const family = isIPv6(address) ? "ipv6" : "ipv4";
  return KINDS.find(({ list }) => list.check(address, family))?.kind ?? null;
}

/** Why the registry whose host resolved to `addresses` may not be pulled from, or null when it may. */
export function registryAddressRefusal(host: string, addresses: readonly string[]): string | null {
  if (addresses.length === 0) return `its registry host ${host} resolves to no address`;
  for (const address of addresses) {
    const kind = nonPublicKind(address);
    if (kind) return `its registry host ${host} resolves to ${address}, a ${kind} address; this host pulls only from public addresses`;
  }
  return null;
}

/** Resolves the registry `image` names and throws, saying why, unless every address is public. */
export async function checkRegistryAddresses(image: string, resolve: RegistryLookup): Promise<void> {
  const host = registryHostOf(registryOf(image));
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new Error(`the pull of ${image} was refused: its registry host ${host} does not resolve${typeof code === "string" ? ` (${code})` : ""}`);
  }
  const refusal = registryAddressRefusal(host, addresses);
  if (refusal) throw new Error(`the pull of ${image} was refused: ${refusal}`);
}
