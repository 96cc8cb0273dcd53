#!/usr/bin/env bash
# Installs JupyterLab in a virtual environment of its own (/opt/gpu-rental-jupyterlab) for the test of
# a real app behind the apps origin (test/e2e/jupyter.test.ts): the dev agent runs the pytorch
# template's own command with it when asked (DEV_JUPYTER=1), whose `pip install jupyterlab` then finds
# it installed. Idempotent; run as root.
set -euo pipefail

JUPYTERLAB_DIR=/opt/gpu-rental-jupyterlab

if [ ! -x "$JUPYTERLAB_DIR/bin/jupyter-lab" ]; then
  echo "jupyter.sh: installing JupyterLab in $JUPYTERLAB_DIR" >&2
  if ! python3 -m venv "$JUPYTERLAB_DIR" 2>/dev/null; then
    # Debian's python3 makes virtual environments with python3-venv only.
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$JUPYTERLAB_DIR"
    python3 -m venv "$JUPYTERLAB_DIR"
  fi
  "$JUPYTERLAB_DIR/bin/pip" install --quiet jupyterlab
fi

echo "jupyter.sh: JupyterLab $("$JUPYTERLAB_DIR/bin/jupyter-lab" --version)" >&2
