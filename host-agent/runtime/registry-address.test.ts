// Which registry addresses the host's engine is never sent to, and the pull refusal that names the
// host, the address and its kind, judged on the answers of a resolver the test hands in.
import { describe, expect, it } from "vitest";
import { checkRegistryAddresses, nonPublicKind, registryAddressRefusal, type RegistryLookup } from "./registry-address.ts";

const answering = (answers: Record<string, string[]>): { lookup: RegistryLookup; asked: string[] } => {
  const asked: string[] = [];
  const lookup: RegistryLookup = async (host) => {
    asked.push(host);
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses;
  };
  return { lookup, asked };
};

describe("the kind of a registry's address", () => {
  it.each([
    ["0.0.0.0", "unspecified"], ["0.1.2.3", "unspecified"], ["::", "unspecified"],
    ["127.0.0.1", "loopback"], ["127.255.0.9", "loopback"], ["::1", "loopback"],
    ["10.0.0.5", "private"], ["172.16.0.1", "private"], ["172.31.255.254", "private"], ["192.168.1.1", "private"], ["fd00::1", "private"], ["fc12::9", "private"],
    ["100.64.0.1", "carrier-grade NAT"], ["100.100.100.200", "carrier-grade NAT"], ["100.127.255.255", "carrier-grade NAT"],
    ["169.254.169.254", "link-local"], ["fe80::1", "link-local"], ["fe80::1%eth0", "link-local"],
    ["224.0.0.251", "multicast"], ["239.255.255.250", "multicast"], ["ff02::fb", "multicast"],
    ["240.0.0.1", "reserved"], ["255.255.255.255", "reserved"],
    ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"], ["::ffff:10.1.2.3", "private"], ["::ffff:169.254.169.254", "link-local"], ["::ffff:100.64.0.1", "carrier-grade NAT"],
  ])("%s is %s", (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each(["8.8.8.8", "104.16.0.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255", "169.255.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "fec0::1"])(
    "%s is public",
    (address) => {
      expect(nonPublicKind(address)).toBeNull();
    },
  );
});

describe("a pull's registry check", () => {
  it("refuses a host any of whose addresses is not public, naming the first such address and its kind", () => {
    expect(registryAddressRefusal("registry.example.com", ["203.0.113.9", "2001:db8::1"])).toBeNull();
    expect(registryAddressRefusal("rebind.example.com", ["104.16.0.1", "10.0.0.5"])).toBe(
      "its registry host rebind.example.com resolves to 10.0.0.5, a private address; this host pulls only from public addresses",
    );
    expect(registryAddressRefusal("empty.example.com", [])).toBe("its registry host empty.example.com resolves to no address");
  });

  it("resolves the host the engine would connect to: Docker Hub's registry for a short name, the name without its port", async () => {
    const { lookup, asked } = answering({ "registry-1.docker.io": ["54.0.0.1"], "ghcr.io": ["140.82.0.1"], "127.0.0.1.nip.io": ["127.0.0.1"] });
    await checkRegistryAddresses("ubuntu:24.04", lookup);
    await checkRegistryAddresses("vllm/vllm-openai:v0.11.0", lookup);
    await checkRegistryAddresses("ghcr.io/acme/app:1", lookup);
    await expect(checkRegistryAddresses("127.0.0.1.nip.io:5000/x", lookup)).rejects.toThrow(
      "the pull of 127.0.0.1.nip.io:5000/x was refused: its registry host 127.0.0.1.nip.io resolves to 127.0.0.1, a loopback address; this host pulls only from public addresses",
    );
    expect(asked).toEqual(["registry-1.docker.io", "registry-1.docker.io", "ghcr.io", "127.0.0.1.nip.io"]);
  });

  it("refuses a host that does not resolve, with the resolver's code, and an IPv4-mapped private answer", async () => {
    const { lookup } = answering({ "mapped.example.com": ["::ffff:192.168.0.10"] });
    await expect(checkRegistryAddresses("nowhere.example.com/a/b", lookup)).rejects.toThrow(
      "the pull of nowhere.example.com/a/b was refused: its registry host nowhere.example.com does not resolve (ENOTFOUND)",
    );
    await expect(checkRegistryAddresses("mapped.example.com/a/b", lookup)).rejects.toThrow("resolves to ::ffff:192.168.0.10, a private address");
  });
});
