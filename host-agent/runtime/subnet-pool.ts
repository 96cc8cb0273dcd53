// The address pool instance networks come from: each instance gets a /28 of it (a gateway and its
// one container), chosen so it overlaps no network the engine already has. Knowing the pool lets
// the host firewall refuse traffic between instances with one rule. IPv4 only, as Docker's bridges are.
export const DEFAULT_NETWORK_POOL = "10.213.0.0/16";
export const INSTANCE_PREFIX = 28;

interface Cidr {
  base: number;
  prefix: number;
}

export function parseCidr(text: string): Cidr | { error: string } {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text.trim());
  const octets = match?.slice(1, 5).map(Number) ?? [];
  const prefix = Number(match?.[5]);
  if (!match || octets.some((o) => o > 255) || prefix > 32) return { error: `"${text}" is not an IPv4 CIDR like ${DEFAULT_NETWORK_POOL}` };
  const base = octets.reduce((acc, octet) => acc * 256 + octet, 0);
  if (base % size(prefix) !== 0) return { error: `"${text}" has host bits set; did you mean ${format(base - (base % size(prefix)), prefix)}?` };
  return { base, prefix };
}

/** Checks a pool for the agent: a CIDR with room for at least 16 instance networks. */
export function parsePool(text: string): Cidr | { error: string } {
  const cidr = parseCidr(text);
  if ("error" in cidr) return cidr;
  if (cidr.prefix < 8 || cidr.prefix > INSTANCE_PREFIX - 4) return { error: `"${text}" must be between a /8 and a /${INSTANCE_PREFIX - 4}` };
  return cidr;
}

/** The first /28 of `pool` that overlaps none of the `used` subnets (non-IPv4 entries are ignored), or null when full. */
export function freeSubnet(pool: string, used: readonly string[]): string | null {
  const range = parsePool(pool);
  if ("error" in range) throw new Error(range.error);
  const taken = used.map(parseCidr).filter((c): c is Cidr => !("error" in c));
  const step = size(INSTANCE_PREFIX);
  for (let base = range.base; base < range.base + size(range.prefix); base += step) {
    const candidate = { base, prefix: INSTANCE_PREFIX };
    if (!taken.some((other) => overlaps(candidate, other))) return format(base, INSTANCE_PREFIX);
  }
  return null;
}

/** Whether the IPv4 `address` lies in `pool` (false for anything that is not an address). */
export function poolContains(pool: string, address: string): boolean {
  const [range, single] = [parseCidr(pool), parseCidr(`${address}/32`)];
  return !("error" in range) && !("error" in single) && overlaps(range, single);
}

function overlaps(a: Cidr, b: Cidr): boolean {
  return a.base < b.base + size(b.prefix) && b.base < a.base + size(a.prefix);
}

function size(prefix: number): number {
  return 2 ** (32 - prefix);
}

function format(base: number, prefix: number): string {
  return `${[24, 16, 8, 0].map((shift) => Math.floor(base / 2 ** shift) % 256).join(".")}/${prefix}`;
}
