#!/usr/bin/env bash
# Installs Debian's Jupyter (the classic notebook server and the Python 3 kernel) for the test of a
# real app behind the apps origin (test/e2e/jupyter.test.ts): the dev agent runs it as a pytorch
# instance's process when asked (DEV_JUPYTER=1). Idempotent; run as root.
set -euo pipefail

if ! command -v jupyter-notebook >/dev/null || [ ! -f /usr/share/jupyter/kernels/python3/kernel.json ]; then
  echo "jupyter.sh: installing jupyter-notebook, python3-ipykernel" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq jupyter-notebook python3-ipykernel >/dev/null
fi

echo "jupyter.sh: jupyter notebook $(jupyter-notebook --version)" >&2
