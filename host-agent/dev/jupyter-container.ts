// The real Jupyter as a local-runtime container, for tests of the apps origin against a real app
// (the dev agent's DEV_JUPYTER=1): an instance of the catalog's Jupyter template runs Debian's
// `jupyter notebook` (jupyter-notebook, python3-ipykernel) on its port's host port instead of the
// dev container server. Dev agent only: the production agent runs the template's image.
import { join } from "node:path";

/** The catalog's template whose port 8888 is a Jupyter server (PyTorch with Jupyter). */
export const JUPYTER_TEMPLATE = "pytorch";
export const JUPYTER_PORT = 8888;

/**
 * Jupyter on loopback with no token or password: the platform in front of it is the lock (the
 * apps origin's session, the proxy's key). Served at `/`, the root of its app origin; its notebooks
 * and kernel files live in the container's folder. As root where the agent is (CI), as in the
 * template's image. The agent hands it `Host: localhost:8888` (the container port, as locally),
 * so Jupyter would take the browser's Origin, the app origin, for a cross-origin caller and refuse
 * its API calls and kernel WebSockets: that origin, and only the instance's own, is allowed.
 */
export function jupyterCommand(instanceId: string, hostPort: number, containerDir: string): { program: string[]; env: Record<string, string> } {
  const data = join(containerDir, "data");
  return {
    program: [
      "jupyter", "notebook", "--allow-root", "--no-browser", "--ip=127.0.0.1", `--port=${hostPort}`, "--port-retries=0",
      "--NotebookApp.token=", "--NotebookApp.password=", "--NotebookApp.base_url=/", `--notebook-dir=${data}`,
      `--NotebookApp.allow_origin_pat=^https?://${instanceId}-${JUPYTER_PORT}\\.`,
    ],
    // Jupyter keeps its settings and runtime files (kernel connection files) under HOME.
    env: { HOME: join(containerDir, "home"), PATH: process.env.PATH ?? "/usr/bin:/bin" },
  };
}
