// The real Jupyter as a local-runtime container, for tests of the apps origin against a real app
// (the dev agent's DEV_JUPYTER=1): an instance of the catalog's Jupyter template runs the template's
// own command (launch-commands.ts: JupyterLab served at `/`, locked by the instance token, allowing
// its own app origin only) on this machine, with the JupyterLab that scripts/ci/jupyter.sh installs,
// instead of the dev container server. Dev agent only: the production agent runs the template's image.
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The catalog's template whose port 8888 is a Jupyter server (PyTorch with Jupyter). */
export const JUPYTER_TEMPLATE = "pytorch";
export const JUPYTER_PORT = 8888;
/** The virtual environment scripts/ci/jupyter.sh installs JupyterLab in (the template's `pip install` then finds it there). */
export const JUPYTERLAB_DIR = "/opt/gpu-rental-jupyterlab";

/**
 * The template's command (`command`, bash installing JupyterLab when absent, then serving it) with
 * JUPYTERLAB_DIR first on its PATH. In a container port 8888 and 0.0.0.0 are the container's own;
 * here the process shares the host's ports, so a `jupyter` of the container's folder comes first: it
 * hands the real one the template's arguments with `--port=8888` and `--ip=0.0.0.0` made the host
 * port the runtime published 8888 on, on loopback, as a port mapping does (Jupyter refuses an option
 * given twice, so they are replaced, not added). Jupyter keeps its settings and kernel files under HOME.
 */
export async function jupyterCommand(command: string[], hostPort: number, containerDir: string): Promise<{ program: string[]; env: Record<string, string> }> {
  const bin = join(containerDir, "bin");
  const home = join(containerDir, "home");
  await Promise.all([mkdir(bin, { recursive: true }), mkdir(home, { recursive: true })]);
  const shim = join(bin, "jupyter");
  await writeFile(shim, [
    "#!/bin/sh",
    "for arg; do",
    "  shift",
    "  case \"$arg\" in",
    `    --port=${JUPYTER_PORT}) arg=--port=${hostPort} ;;`,
    "    --ip=0.0.0.0) arg=--ip=127.0.0.1 ;;",
    "  esac",
    "  set -- \"$@\" \"$arg\"",
    "done",
    `exec ${JUPYTERLAB_DIR}/bin/jupyter "$@"`,
    "",
  ].join("\n"));
  await chmod(shim, 0o755);
  return {
    program: command,
    env: { HOME: home, PATH: `${bin}:${JUPYTERLAB_DIR}/bin:${process.env.PATH ?? "/usr/bin:/bin"}` },
  };
}
