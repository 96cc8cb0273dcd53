// `gpu ssh-proxy <id>`: the ProxyCommand of `gpu ssh` and `gpu ssh-config`. Its stdin and stdout are
// the SSH connection, carried as binary WebSocket messages over GET /v1/instances/{id}/ssh with the
// configured key. Input is read only while the socket's buffer is small, so a slow link holds ssh back.
import WebSocket from "ws";
import { instanceCommand } from "./instance-command.ts";
import type { Factory } from "../factory.ts";

const HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** A close either side asked for (1000), or one without a status (1005): nothing to explain. */
const NORMAL_CLOSES = new Set([1000, 1005]);

export function sshProxyCommand(f: Factory) {
  return instanceCommand("ssh-proxy", "Carry an SSH connection on stdin/stdout to an instance (ssh's ProxyCommand; `gpu ssh` sets it)").action(async (id) => {
    const { apiUrl, apiKey } = await f.config();
    const url = `${apiUrl.replace(/^http/, "ws")}/v1/instances/${encodeURIComponent(id)}/ssh`;
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` }, perMessageDeflate: false });
    const stdin = f.io.stdin;
    const refused = new Promise<never>((_, reject) => {
      socket.once("unexpected-response", (_request, response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => reject(new Error(`the service refused SSH to ${id}: HTTP ${response.statusCode} ${messageOf(body)}`)));
      });
      socket.once("error", (error) => reject(error));
    });
    await Promise.race([new Promise((resolve) => socket.once("open", resolve)), refused]);
    socket.on("message", (data: Buffer) => {
      if (!f.io.stdout.write(data)) {
        socket.pause();
        f.io.stdout.once("drain", () => socket.resume());
      }
    });
    stdin.on("data", (chunk: Buffer) => {
      socket.send(chunk);
      if (socket.bufferedAmount > HIGH_WATER_BYTES) {
        stdin.pause();
        const wait = setInterval(() => {
          if (socket.bufferedAmount > HIGH_WATER_BYTES) return;
          clearInterval(wait);
          stdin.resume();
        }, 5);
      }
    });
    stdin.on("end", () => socket.close(1000));
    const [code, reason] = await new Promise<[number, Buffer]>((resolve) => socket.once("close", (...closed) => resolve(closed)));
    // ssh itself only sees its connection end; the service's close says why (its host went away).
    if (!NORMAL_CLOSES.has(code)) f.io.err(`gpu ssh-proxy: the service ended the connection to ${id}: ${reason.toString() || "no reason given"} (WebSocket close ${code})`);
    stdin.destroy();
  });
}

function messageOf(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body;
  }
}
