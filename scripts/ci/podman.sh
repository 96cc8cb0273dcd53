#!/usr/bin/env bash
# Provisions a Docker-compatible engine (podman's API service) on a clean Debian machine, as root,
# with two local test images, so the docker runtime tests run without Docker or a registry: a busybox
# one, and the dev container server (HTTP, SSE, WebSocket) on the project's own Node, which the real
# agent's end-to-end test runs (after `npm ci`: it is bundled from this checkout). Both are built
# from files on this machine only. Idempotent. Prints the DOCKER_HOST value last; CONTAINERS_CONF is
# only needed by podman itself.
set -euo pipefail
cd "$(dirname "$0")/../.."

STATE_DIR="${GPU_RENTAL_PODMAN_DIR:-/var/lib/gpu-rental-podman}"
SOCKET="${GPU_RENTAL_PODMAN_SOCKET:-/run/gpu-rental-podman.sock}"
IMAGE="localhost/gpu-rental-busybox:latest"
DEV_SERVER_IMAGE="localhost/gpu-rental-dev-server:latest"
export CONTAINERS_CONF="$STATE_DIR/containers.conf"

log() { echo "podman.sh: $*" >&2; }

# nftables: the tenant firewall the isolation tests set and read; openssl: the registry stand-in's certificate;
# openssh-client: the real ssh, sftp and scp the SSH tests drive through the bridge; openssh-sftp-server
# and rsync: what the local runtime's "image" (this machine) serves them with.
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || [ ! -x /bin/busybox ] || ! command -v curl >/dev/null \
  || ! command -v nft >/dev/null || ! command -v openssl >/dev/null || ! command -v ssh >/dev/null \
  || [ ! -x /usr/lib/openssh/sftp-server ] || ! command -v rsync >/dev/null; then
  log "installing podman, runc, busybox-static, curl, nftables, openssl, openssh-client, openssh-sftp-server, rsync"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq podman runc busybox-static curl nftables openssl openssh-client openssh-sftp-server rsync >/dev/null
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

# The dev container server, bundled into one file, with the Node that runs the project (node@22, a
# devDependency), the shared libraries it links, and busybox for a shell. Rebuilt whenever the bundle, that Node or busybox changes:
# the image carries their digest as a label.
if [ -x node_modules/.bin/esbuild ] && [ -x node_modules/node/bin/node ]; then
  build="$(mktemp -d)"
  node_modules/.bin/esbuild host-agent/dev/container/server.ts --bundle --platform=node --format=esm --target=node22 --log-level=warning \
    --external:bufferutil --external:utf-8-validate \
    --banner:js="import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" \
    --outfile="$build/server.mjs"
  digest="$(cat "$build/server.mjs" node_modules/node/bin/node /bin/busybox | sha256sum | cut -c1-64)"
  if [ "$(podman image inspect --format '{{ index .Labels "gpu-rental.source" }}' "$DEV_SERVER_IMAGE" 2>/dev/null)" != "$digest" ]; then
    log "building $DEV_SERVER_IMAGE from this checkout's dev container server and node"
    rootfs="$build/rootfs"
    mkdir -p "$rootfs/bin" "$rootfs/app" "$rootfs/tmp"
    cp node_modules/node/bin/node "$rootfs/bin/node"
    # A shell and the usual commands, as any real image has: SSH sessions run in it (Docker exec).
    cp /bin/busybox "$rootfs/bin/busybox"
    for applet in $(/bin/busybox --list); do [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"; done
    cp "$build/server.mjs" "$rootfs/app/server.mjs"
    for lib in $(ldd node_modules/node/bin/node | grep -o '/[^ ]*'); do
      mkdir -p "$rootfs$(dirname "$lib")"
      cp -L "$lib" "$rootfs$lib"
    done
    tar -C "$rootfs" -cf "$build/rootfs.tar" .
    podman import --quiet \
      --change 'CMD ["/bin/node","/app/server.mjs"]' \
      --change 'ENV DEV_LISTEN=8000:8000' --change 'ENV DEV_LISTEN_HOST=0.0.0.0' \
      --change 'ENV DEV_READY_DELAY_MS=0' --change 'ENV DEV_DATA_DIR=/data' \
      --change "LABEL gpu-rental.source=$digest" \
      "$build/rootfs.tar" "$DEV_SERVER_IMAGE" >/dev/null
  fi
  rm -rf "$build"
else
  log "no node_modules (run npm ci first): $DEV_SERVER_IMAGE not built"
fi

ping_engine() { curl -fsS --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }

# A service whose working directory was deleted (one started from a checkout removed since) answers
# pings but starts no container ("conmon: Failed to get working directory"): it is started again.
SERVICE_PID="$STATE_DIR/service.pid"
if [ -f "$SERVICE_PID" ] && readlink "/proc/$(cat "$SERVICE_PID")/cwd" 2>/dev/null | grep -q ' (deleted)$'; then
  log "restarting podman system service: its working directory is gone"
  kill -- "-$(cat "$SERVICE_PID")" 2>/dev/null || true
  for _ in $(seq 1 50); do ping_engine || break; sleep 0.1; done
fi

if ! ping_engine; then
  log "starting podman system service on $SOCKET"
  rm -f "$SOCKET"
  # In a session of its own: it outlives the shell (and process group) that provisioned it, working in
  # its state folder, which outlives any checkout. Started again if it dies: podman 4.3's API service
  # can crash on concurrent network lists from other processes ("concurrent map writes"), which would
  # fail every engine test after it.
  (cd "$STATE_DIR" && exec setsid nohup sh -c "while :; do rm -f $SOCKET; podman system service --time=0 unix://$SOCKET; sleep 0.2; done" >"$STATE_DIR/service.log" 2>&1) &
  echo $! >"$SERVICE_PID"
  for _ in $(seq 1 100); do
    ping_engine && break
    sleep 0.1
  done
  ping_engine || { log "engine did not answer; see $STATE_DIR/service.log"; exit 1; }
fi

echo "DOCKER_HOST=unix://$SOCKET"
