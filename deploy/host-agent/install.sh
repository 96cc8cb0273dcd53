#!/usr/bin/env bash
# Installs the packaged host agent (this folder, made by `npm run build:agent`) on a GPU host, as root:
#   sudo ./install.sh --server https://api.example.com --token gma_7_...
#   (or AGENT_TOKEN in the environment instead of --token, to keep it out of the shell history)
# Options: --network-pool CIDR (default 10.213.0.0/16), --state-dir DIR (default /var/lib/gpu-rental),
#          --cache-dir DIR (default STATE_DIR/hf-cache), --unenforced-disk accept|refuse (default refuse:
#          no instances where the engine cannot enforce disk_gb), --pull-proxy URL (or PULL_PROXY: dockerd's
#          image pulls go through this egress guard, an HTTP proxy that refuses private destinations;
#          pull-proxy.sh writes it as a drop-in of docker.service and restarts docker when it changes).
#          Run it again to upgrade or change a setting.
# It copies the agent to /opt/gpu-rental/agent, writes /etc/gpu-rental/agent.env (mode 0600: the
# token lives only there), sets the tenant firewall rules, installs and starts the systemd unit
# gpu-rental-agent, and runs `gpu-rental-agent doctor`.
set -euo pipefail

die() { echo "install.sh: $*" >&2; exit 1; }

server="" token="${AGENT_TOKEN:-}" pool="10.213.0.0/16" state_dir="/var/lib/gpu-rental" cache_dir="" unenforced_disk="refuse" pull_proxy="${PULL_PROXY:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server="${2:-}"; shift 2 ;;
    --token) token="${2:-}"; shift 2 ;;
    --network-pool) pool="${2:-}"; shift 2 ;;
    --state-dir) state_dir="${2:-}"; shift 2 ;;
    --cache-dir) cache_dir="${2:-}"; shift 2 ;;
    --unenforced-disk) unenforced_disk="${2:-}"; shift 2 ;;
    --pull-proxy) pull_proxy="${2:-}"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
cache_dir="${cache_dir:-$state_dir/hf-cache}"

[ "$(id -u)" = 0 ] || die "run as root (sudo ./install.sh ...): it writes /opt, /etc and the firewall"
[[ "$server" =~ ^https://[^[:space:]]+$ ]] || die "--server must be the service's https base URL, e.g. https://api.example.com (the token must not travel unencrypted)"
[[ "$token" =~ ^gma_[1-9][0-9]*_[a-z2-7]{32}$ ]] || die "--token (or AGENT_TOKEN) must be the machine's agent_token, gma_<id>_<32 characters>, from POST /admin/v1/machines"
[[ "$pool" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}/[0-9]{1,2}$ ]] || die "--network-pool must be an IPv4 CIDR like 10.213.0.0/16"
[[ "$state_dir" = /* && "$cache_dir" = /* ]] || die "--state-dir and --cache-dir must be absolute paths"
[[ "$unenforced_disk" =~ ^(accept|refuse)$ ]] || die "--unenforced-disk must be accept or refuse"
[ -z "$pull_proxy" ] || [[ "$pull_proxy" =~ ^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$ ]] \
  || die "--pull-proxy (or PULL_PROXY) must be the egress guard's URL, http(s)://HOST[:PORT] (no path, no credentials)"

here="$(cd "$(dirname "$0")" && pwd)"
for file in agent.mjs node firewall.sh pull-proxy.sh gpu-rental-agent gpu-rental-agent.service; do
  [ -f "$here/$file" ] || die "$here/$file is missing: run npm run build:agent and copy all of dist/host-agent"
done
"$here/node" --version >/dev/null 2>&1 \
  || die "the bundled Node runtime does not run here ($(uname -sm)): build on a machine of the same OS and CPU, or use the Dockerfile"
command -v systemctl >/dev/null || die "systemd is needed to run the agent as a service (or use the Dockerfile)"
command -v nft >/dev/null || die "nft is needed for the tenant firewall rules: apt install nftables"

dest=/opt/gpu-rental/agent
install -d -m 0755 "$dest"
for file in agent.mjs node firewall.sh gpu-rental-agent; do install -m 0755 "$here/$file" "$dest/$file.new" && mv -f "$dest/$file.new" "$dest/$file"; done
ln -sf "$dest/gpu-rental-agent" /usr/local/bin/gpu-rental-agent

install -d -m 0700 /etc/gpu-rental
env_file=/etc/gpu-rental/agent.env
(
  umask 077
  cat >"$env_file.new" <<EOF
AGENT_SERVER=$server
AGENT_TOKEN=$token
AGENT_RUNTIME=docker
AGENT_STATE_DIR=$state_dir
AGENT_CACHE_DIR=$cache_dir
AGENT_NETWORK_POOL=$pool
AGENT_UNENFORCED_DISK=$unenforced_disk
EOF
)
chmod 0600 "$env_file.new" && mv -f "$env_file.new" "$env_file"
install -d -m 0755 "$state_dir" "$cache_dir"

AGENT_NETWORK_POOL="$pool" "$dest/firewall.sh"

# dockerd's own pulls (from the registries tenants name) through the egress guard.
[ -z "$pull_proxy" ] || "$here/pull-proxy.sh" "$pull_proxy"

install -m 0644 "$here/gpu-rental-agent.service" /etc/systemd/system/gpu-rental-agent.service
systemctl daemon-reload
systemctl enable gpu-rental-agent >/dev/null
systemctl restart gpu-rental-agent
echo "install.sh: gpu-rental-agent installed and started (journalctl -u gpu-rental-agent -f for its logs)" >&2

/usr/local/bin/gpu-rental-agent doctor \
  || echo "install.sh: doctor found problems (above); the agent keeps retrying. Fix them, then: sudo gpu-rental-agent doctor" >&2
