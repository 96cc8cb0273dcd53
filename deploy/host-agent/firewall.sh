#!/usr/bin/env bash
# Host firewall rules that keep tenants' containers apart and away from the host. Every instance
# network is a /28 of the agent's pool (AGENT_NETWORK_POOL), so for sources in the pool this drops:
#   - traffic to any other pool address (another instance's Jupyter or model server);
#   - traffic to 169.254.0.0/16 but DNS (a cloud's metadata service at 169.254.169.254 hands out the host's credentials);
#   - new connections to the host itself (its SSH, its Docker API, anything listening), except DNS.
# Replies to connections the host opened (the agent reaching a container's ports) still pass.
# Usage (as root): firewall.sh [POOL]   Idempotent; run again after changing the pool.
set -euo pipefail

POOL="${1:-${AGENT_NETWORK_POOL:-10.213.0.0/16}}"
ipt() { iptables -w "$@"; }

# A fresh chain each time, so a changed pool leaves no stale rules behind.
fresh_chain() { ipt -N "$1" 2>/dev/null || ipt -F "$1"; }
# A jump at the top of a built-in chain, added once.
hook() { ipt -C "$1" -j "$2" 2>/dev/null || ipt -I "$1" 1 -j "$2"; }

fresh_chain GPU-RENTAL-FORWARD
ipt -A GPU-RENTAL-FORWARD -s "$POOL" -d "$POOL" -j DROP
# Some clouds resolve DNS at a link-local address (GCP's metadata server, AWS's 169.254.169.253):
# name lookups pass, nothing else does (the credentials are served over HTTP).
ipt -A GPU-RENTAL-FORWARD -s "$POOL" -d 169.254.0.0/16 -p udp --dport 53 -j RETURN
ipt -A GPU-RENTAL-FORWARD -s "$POOL" -d 169.254.0.0/16 -p tcp --dport 53 -j RETURN
ipt -A GPU-RENTAL-FORWARD -s "$POOL" -d 169.254.0.0/16 -j DROP

fresh_chain GPU-RENTAL-INPUT
ipt -A GPU-RENTAL-INPUT -s "$POOL" -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN
# Podman's bridges answer DNS on the gateway address; Docker's resolver never reaches the host.
ipt -A GPU-RENTAL-INPUT -s "$POOL" -p udp --dport 53 -j RETURN
ipt -A GPU-RENTAL-INPUT -s "$POOL" -p tcp --dport 53 -j RETURN
ipt -A GPU-RENTAL-INPUT -s "$POOL" -j DROP

hook INPUT GPU-RENTAL-INPUT
# Docker evaluates DOCKER-USER before its own accept rules; other engines get the top of FORWARD.
if ipt -n -L DOCKER-USER >/dev/null 2>&1; then
  hook DOCKER-USER GPU-RENTAL-FORWARD
else
  hook FORWARD GPU-RENTAL-FORWARD
fi
echo "firewall.sh: instance traffic rules set for $POOL" >&2
