#!/usr/bin/env bash
# Host firewall rules that keep tenants' containers apart, away from the host and off its network,
# as an nftables table of their own, `inet gpu_rental`. Instance traffic is what comes from an
# instance bridge (named gpr-..., IPv4 and IPv6 alike) or from the agent's pool (AGENT_NETWORK_POOL;
# also covers networks made before bridges were named). Public internet and DNS stay open (models
# download from the Hub); for instance traffic this refuses:
#   - anything to another instance (its Jupyter or model server);
#   - anything to private (RFC 1918, IPv6 ULA), carrier-grade NAT (100.64.0.0/10), link-local
#     (169.254.0.0/16, fe80::/10) and multicast addresses, on IPv4 and IPv6: the host's own network,
#     where a cloud's other machines and control services live, and metadata services that hand out
#     the host's credentials (169.254.169.254; Alibaba's at 100.100.100.200);
#   - new connections to the host itself (its SSH, its Docker API, anything listening), on any of
#     its addresses.
# DNS (port 53) is the one exception, to any address: clouds resolve names at link-local (GCP's
# 169.254.169.254, AWS's 169.254.169.253) or private addresses (AWS's VPC resolver), where Docker's
# embedded resolver forwards from the container's namespace; podman's bridges answer DNS on the
# gateway. Replies to connections the host opened (the agent reaching a container's ports) pass.
#
# Why a table of its own, hooked before the engines' filter chains (priority filter - 10): an
# `accept` in one nftables base chain only hands the packet on to the next base chain, while a
# reject or drop anywhere is final. So no engine's accept (Docker's iptables or nftables rules,
# podman's netavark, whichever order they add their chains in) can let a packet past these rules;
# jumps placed in the engines' own chains could be, and were, outranked. Each refusal is a reject
# (ICMP administratively prohibited): software probing a metadata service fails at once instead of
# waiting out a timeout. Each rule carries a counter and a comment that names it: the agent checks
# the table on every ruleset change and every few seconds (host-agent/tenant-firewall/rules-check.ts
# has every rule, in order, as nft reports what it matches) and runs this script again when the table
# is gone or altered, instance bridges down until it is back; doctor and the tests read the counters
# (`nft -j list table inet gpu_rental`). The agent applies this file, not a copy: a rule changed here
# changes its line in rules-check.ts too (the tests run this script and check the table it writes).
# Usage (as root): firewall.sh [POOL]   Idempotent: the table is replaced whole, in one transaction.
set -euo pipefail

POOL="${1:-${AGENT_NETWORK_POOL:-10.213.0.0/16}}"
die() { echo "firewall.sh: $*" >&2; exit 1; }
[[ "$POOL" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}/[0-9]{1,2}$ ]] || die "the pool must be an IPv4 CIDR like 10.213.0.0/16, got \"$POOL\""
command -v nft >/dev/null || die "nft is needed for the tenant firewall rules: apt install nftables"

REFUSE="reject with icmpx admin-prohibited"
# Creating the table first makes the delete succeed on a host that has none yet; nft applies the
# whole file atomically, so no packet ever meets a half-written table.
nft -f - <<EOF
table inet gpu_rental
delete table inet gpu_rental
table inet gpu_rental {
	set instance_pool {
		type ipv4_addr; flags interval
		elements = { $POOL }
	}

	chain forward {
		type filter hook forward priority filter - 10; policy accept;
		# goto: when from_instance has no verdict, this chain ends (accept: the engines' chains decide).
		iifname "gpr-*" goto from_instance comment "instance bridge"
		ip saddr @instance_pool goto from_instance comment "instance pool"
	}

	chain from_instance {
		ip daddr @instance_pool counter $REFUSE comment "instance"
		oifname "gpr-*" counter $REFUSE comment "instance"
		meta l4proto { tcp, udp } th dport 53 counter accept comment "dns"
		ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 } counter $REFUSE comment "private"
		ip6 daddr fc00::/7 counter $REFUSE comment "private"
		ip daddr 100.64.0.0/10 counter $REFUSE comment "carrier-grade nat"
		ip daddr 169.254.0.0/16 counter $REFUSE comment "link-local"
		ip6 daddr fe80::/10 counter $REFUSE comment "link-local"
		ip daddr 224.0.0.0/4 counter $REFUSE comment "multicast"
		ip6 daddr ff00::/8 counter $REFUSE comment "multicast"
	}

	chain input {
		type filter hook input priority filter - 10; policy accept;
		iifname "gpr-*" goto to_host comment "instance bridge"
		ip saddr @instance_pool goto to_host comment "instance pool"
	}

	chain to_host {
		ct state established,related counter accept comment "replies"
		meta l4proto { tcp, udp } th dport 53 counter accept comment "dns"
		counter $REFUSE comment "host"
	}
}
EOF

# Rules of earlier versions, iptables chains jumped to from the engines' chains, go.
if command -v iptables >/dev/null; then
  for hook in INPUT:GPU-RENTAL-INPUT FORWARD:GPU-RENTAL-FORWARD DOCKER-USER:GPU-RENTAL-FORWARD; do
    while iptables -w -D "${hook%%:*}" -j "${hook#*:}" 2>/dev/null; do :; done
  done
  for chain in GPU-RENTAL-INPUT GPU-RENTAL-FORWARD; do
    iptables -w -F "$chain" 2>/dev/null && iptables -w -X "$chain" 2>/dev/null || true
  done
fi
echo "firewall.sh: instance traffic rules set for $POOL (nft list table inet gpu_rental)" >&2
