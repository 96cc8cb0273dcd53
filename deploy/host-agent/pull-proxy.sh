#!/usr/bin/env bash
# Points dockerd's image pulls at an egress guard (install.sh --pull-proxy), as root:
#   ./pull-proxy.sh http://127.0.0.1:3128 [DROPIN_DIR]   (default /etc/systemd/system/docker.service.d)
# Writes the drop-in gpu-rental-pull-proxy.conf of docker.service: HTTPS_PROXY and HTTP_PROXY, which
# dockerd uses for its registries and containers do not inherit. docker restarts only when the
# drop-in changed (its running containers stop with it, as on any restart without live-restore).
set -euo pipefail

die() { echo "pull-proxy.sh: $*" >&2; exit 1; }

url="${1:-}" dir="${2:-/etc/systemd/system/docker.service.d}"
[[ "$url" =~ ^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$ ]] \
  || die "the egress guard's URL must be http(s)://HOST[:PORT] (no path, no credentials), got \"$url\""

dropin="$dir/gpu-rental-pull-proxy.conf"
install -d -m 0755 "$dir"
printf '# Written by gpu-rental install.sh --pull-proxy: dockerd pulls images through the egress guard.\n[Service]\nEnvironment="HTTPS_PROXY=%s" "HTTP_PROXY=%s" "NO_PROXY="\n' \
  "$url" "$url" >"$dropin.new"
if cmp -s "$dropin.new" "$dropin"; then
  rm -f "$dropin.new"
  exit 0
fi
mv -f "$dropin.new" "$dropin"
systemctl daemon-reload
systemctl restart docker
echo "pull-proxy.sh: docker restarted to pull through $url" >&2
