// The dashboard's terminal as its page opens it: a WebSocket to /v1/instances/{id}/terminal with the
// dev login's session cookie and this service's Origin.
import { once } from "node:events";
import WebSocket from "ws";
import { poll, type E2eStack, type Instance } from "./e2e-stack.ts";

export interface Terminal {
  /** What the terminal has shown so far. */
  shown(): string;
  /** Types a command and waits for its answer, proving the shell is there. */
  answers(): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** A terminal in `instance`, its shell answering. */
export async function openTerminal(stack: E2eStack, instance: Instance): Promise<Terminal> {
  const { email, password } = stack.setup.account;
  const login = await fetch(`${stack.baseUrl}/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const cookie = login.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  const socket = new WebSocket(`${stack.baseUrl.replace(/^http/, "ws")}/v1/instances/${instance.id}/terminal?cols=80&rows=24`, { headers: { cookie, origin: stack.baseUrl } });
  let output = "";
  socket.on("message", (data: Buffer) => (output += data.toString()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  await once(socket, "open");
  let answered = 0;
  const terminal: Terminal = {
    shown: () => output,
    closed,
    close: () => socket.close(1000, "done"),
    async answers() {
      const n = ++answered;
      socket.send(`echo term-$((6*7))-${n}\n`);
      await poll(async () => output, (text) => text.includes(`term-42-${n}`));
    },
  };
  await terminal.answers();
  return terminal;
}
