// An SSH session's process in a container, through the Engine API as `docker exec -i [-t]` does:
// stdin attached, a TTY when the client asked for one (its size followed), and the exit status read
// back once the output has ended. The image needs nothing installed beyond /bin/sh.
import { once } from "node:events";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import type { ExecProcess, ExecRequest } from "./runtime.ts";

/** A login shell: bash where the image has it, else sh. */
const LOGIN_SHELL = "if [ -x /bin/bash ]; then exec /bin/bash -l; else exec /bin/sh -l; fi";

export async function execSession(container: Docker.Container, request: ExecRequest): Promise<ExecProcess> {
  const tty = request.pty !== null;
  // The engine may size the terminal only after the process started (podman does): it is sized first.
  const sized = request.pty ? `stty cols ${request.pty.cols} rows ${request.pty.rows} 2>/dev/null; ` : "";
  const exec = await container.exec({
    Cmd: ["/bin/sh", "-c", sized + (request.command ?? LOGIN_SHELL)],
    AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: tty,
    Env: Object.entries(request.env).map(([name, value]) => `${name}=${value}`),
    ...(request.pty ? { ConsoleSize: [request.pty.rows, request.pty.cols] } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin: true, Tty: tty });
  const stdout = new PassThrough();
  const stderr = tty ? null : new PassThrough();
  if (tty) stream.pipe(stdout);
  else {
    exec.modem.demuxStream(stream, stdout, stderr!);
    stream.on("end", () => (stdout.end(), stderr!.end()));
  }
  const resize = (cols: number, rows: number) => void exec.resize({ w: cols, h: rows }).catch(() => undefined);
  if (request.pty) resize(request.pty.cols, request.pty.rows);
  const exit = (async () => {
    await Promise.race([once(stream, "end"), once(stream, "close")]).catch(() => undefined);
    const inspected = await exec.inspect().catch(() => null);
    return inspected?.ExitCode ?? null;
  })();
  return {
    // Ending stdin half-closes the hijacked connection: the process reads end of file.
    stdin: stream,
    stdout,
    stderr,
    resize: tty ? resize : () => undefined,
    exit,
    kill: () => stream.destroy(),
  };
}
