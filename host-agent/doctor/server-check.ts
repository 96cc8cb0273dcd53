// Doctor's server check, a pure function of one answer: `GET <server>/agent/v1/connect` without a
// WebSocket upgrade checks the agent token without taking over the live agent's connection.
import { fail, ok, type CheckResult } from "./check.ts";

export type ServerAnswer = { status: number } | { error: string };

export function checkServer(answer: ServerAnswer, serverUrl: string): CheckResult {
  if ("error" in answer) {
    return fail("server", `${serverUrl} does not answer (${answer.error})`, "check AGENT_SERVER and that this host can reach it over HTTPS");
  }
  if (answer.status === 204) return ok("server", `${serverUrl} answers and accepts this machine's token`);
  if (answer.status === 401) {
    return fail("server", `${serverUrl} refuses the token (401)`, "put the agent_token of POST /admin/v1/machines for this machine in /etc/gpu-rental/agent.env");
  }
  return fail("server", `${serverUrl} answered ${answer.status}, not an agent endpoint`, "check AGENT_SERVER: it is the service's base URL, e.g. https://api.example.com");
}

/** The HTTP(S) URL of the agent endpoint for a `ws(s)://…/agent/v1/connect` URL. */
export function probeUrlOf(connectUrl: string): string {
  return connectUrl.replace(/^ws/, "http");
}

/** The service's base URL, as the operator configured it. */
export function serverUrlOf(connectUrl: string): string {
  return probeUrlOf(connectUrl).replace(/\/agent\/v1\/connect$/, "");
}
