#!/usr/bin/env bash
# Provisions a Docker-compatible engine (podman's API service) on a clean Debian machine, as root,
# with a local busybox test image, so the docker runtime tests run without Docker or a registry.
# Idempotent. Prints the DOCKER_HOST value last; CONTAINERS_CONF is only needed by podman itself.
set -euo pipefail

STATE_DIR="${GPU_RENTAL_PODMAN_DIR:-/var/lib/gpu-rental-podman}"
SOCKET="${GPU_RENTAL_PODMAN_SOCKET:-/run/gpu-rental-podman.sock}"
IMAGE="localhost/gpu-rental-busybox:latest"
export CONTAINERS_CONF="$STATE_DIR/containers.conf"

log() { echo "podman.sh: $*" >&2; }

# nftables: the tenant firewall the isolation tests set and read; openssl: the registry stand-in's certificate;
# openssh-client: the real ssh the SSH tests drive through the bridge.
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || [ ! -x /bin/busybox ] || ! command -v curl >/dev/null \
  || ! command -v nft >/dev/null || ! command -v openssl >/dev/null || ! command -v ssh >/dev/null; then
  log "installing podman, runc, busybox-static, curl, nftables, openssl, openssh-client"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq podman runc busybox-static curl nftables openssl openssh-client >/dev/null
fi

mkdir -p "$STATE_DIR"
# crun fails on setrlimit and hybrid cgroups on these machines; runc with explicit ulimits works.
cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
runtime = "runc"
EOF

if ! podman image exists "$IMAGE"; then
  log "building $IMAGE from /bin/busybox"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' EXIT
  mkdir -p "$rootfs/bin" "$rootfs/www" "$rootfs/data" "$rootfs/tmp"
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $("$rootfs/bin/busybox" --list); do
    [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
  done
  echo "gpu-rental busybox ok" >"$rootfs/www/index.html"
  tar -C "$rootfs" -cf "$rootfs.tar" .
  podman import --quiet \
    --change 'CMD ["/bin/httpd","-f","-p","8080","-h","/www"]' \
    --change 'ENV PATH=/bin' \
    "$rootfs.tar" "$IMAGE" >/dev/null
  rm -f "$rootfs.tar"
fi

ping_engine() { curl -fsS --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }

if ! ping_engine; then
  log "starting podman system service on $SOCKET"
  rm -f "$SOCKET"
  # In a session of its own: it outlives the shell (and process group) that provisioned it.
  setsid nohup podman system service --time=0 "unix://$SOCKET" >"$STATE_DIR/service.log" 2>&1 &
  for _ in $(seq 1 100); do
    ping_engine && break
    sleep 0.1
  done
  ping_engine || { log "engine did not answer; see $STATE_DIR/service.log"; exit 1; }
fi

echo "DOCKER_HOST=unix://$SOCKET"
