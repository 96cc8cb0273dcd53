// Runs a command inside a container through the Engine API (as `docker exec` would), for tests that
// prove what a tenant's process can and cannot do: the agent's own helper, which doctor's probe uses.
export { execIn } from "../../../host-agent/runtime/docker-exec.ts";
