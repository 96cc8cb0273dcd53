#!/usr/bin/env bash
# Installs Debian's Chromium for the dashboard's browser tests (playwright-core drives it; no browser
# is ever downloaded by npm). Idempotent; run as root. Prints the browser's path last.
set -euo pipefail

BROWSER=/usr/bin/chromium

if [ ! -x "$BROWSER" ]; then
  echo "chromium.sh: installing chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
fi

# Debian's wrapper script warns on stderr about its own memory check; the version line is what counts.
echo "chromium.sh: $("$BROWSER" --version 2>/dev/null)" >&2
echo "$BROWSER"
