// `gpu forward <id> <port>`: serves an instance's port on 127.0.0.1 until interrupted, so local
// tools (the openai SDK, a browser, curl, WebSocket clients) use it as if it ran here.
import { once } from "node:events";
import { ok } from "../../client/index.ts";
import { CliError } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { startForwarder } from "../forward/forwarder.ts";
import { printJson } from "../format.ts";
import { integer, JSON_HELP } from "../options.ts";
import { interrupted } from "../sleep.ts";
import { instanceCommand } from "./instance-command.ts";

export function forwardCommand(f: Factory) {
  return instanceCommand("forward", "Forward 127.0.0.1:<local port> to a port inside an instance (HTTP, streaming, WebSockets), adding your key")
    .argument("<port>", "the port inside the instance, e.g. 8000 for vLLM", integer)
    .option("--local-port <n>", "the local port (default: the same as <port>; 0 picks a free one)", integer)
    .option("--json", `${JSON_HELP} (the instance as read when forwarding starts)`)
    .addHelpText("after", "\nExample:\n  gpu forward i-abcdefghijklmnop 8000 &\n  curl http://127.0.0.1:8000/v1/models")
    .action(async (id, port, options) => {
      const localPort = options.localPort ?? port;
      if (localPort < 0 || localPort > 65535) throw new CliError("--local-port: must be from 0 to 65535");
      const { apiUrl, apiKey } = await f.config();
      const instance = await ok((await f.client()).GET("/v1/instances/{id}", { params: { path: { id } } }));
      const forwarder = await startForwarder({ apiUrl, apiKey, instanceId: id, port }, localPort).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "EADDRINUSE") throw new CliError(`127.0.0.1:${localPort} is in use: pick another with --local-port`);
        throw error;
      });
      if (options.json) {
        printJson(f.io, instance);
        f.io.err(`Forwarding ${forwarder.url} -> ${id} port ${port}`);
      } else if (f.io.isStdoutTty) f.io.out(`Forwarding ${forwarder.url} -> ${id} port ${port} (Ctrl-C to stop)`);
      else f.io.out(forwarder.url);
      if (instance.status !== "running") f.io.err(`note: ${id} is ${instance.status}; requests get 409 not_running until it runs`);
      await once(interrupted(), "abort");
      await forwarder.close();
    });
}
