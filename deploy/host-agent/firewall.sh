#!/usr/bin/env bash
# Host firewall rules that keep tenants' containers apart and away from the host, as an nftables
# table of their own, `inet gpu_rental`. Every instance network is a /28 of the agent's pool
# (AGENT_NETWORK_POOL), so for sources in the pool this refuses:
#   - traffic to any other pool address (another instance's Jupyter or model server);
#   - traffic to 169.254.0.0/16 but DNS (a cloud's metadata service at 169.254.169.254 hands out the host's credentials);
#   - new connections to the host itself (its SSH, its Docker API, anything listening), except DNS.
# Replies to connections the host opened (the agent reaching a container's ports) still pass.
#
# Why a table of its own, hooked before the engines' filter chains (priority filter - 10): an
# `accept` in one nftables base chain only hands the packet on to the next base chain, while a
# reject or drop anywhere is final. So no engine's accept (Docker's iptables or nftables rules,
# podman's netavark, whichever order they add their chains in) can let a packet past these rules;
# jumps placed in the engines' own chains could be, and were, outranked. Each refusal is a reject
# (ICMP administratively prohibited): software probing a metadata service fails at once instead of
# waiting out a timeout. Each rule carries a counter and a comment that names it: doctor and the
# tests read them (`nft -j list table inet gpu_rental`).
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
		ip saddr @instance_pool jump from_instance
	}

	chain from_instance {
		ip daddr @instance_pool counter $REFUSE comment "instance"
		# Some clouds resolve DNS at a link-local address (GCP's metadata server, AWS's
		# 169.254.169.253): name lookups pass, nothing else does (the credentials are served over HTTP).
		ip daddr 169.254.0.0/16 meta l4proto { tcp, udp } th dport 53 counter accept comment "link-local dns"
		ip daddr 169.254.0.0/16 counter $REFUSE comment "link-local"
	}

	chain input {
		type filter hook input priority filter - 10; policy accept;
		ip saddr @instance_pool jump to_host
	}

	chain to_host {
		ct state established,related counter accept comment "replies"
		# Podman's bridges answer DNS on the gateway address; Docker's resolver never reaches the host.
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
