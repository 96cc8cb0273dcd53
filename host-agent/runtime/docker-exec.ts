// Runs a command inside a container through the Engine API, as `docker exec` does: doctor's network
// probe (and the tests) use it to see what a tenant's process can and cannot reach.
import { once } from "node:events";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";

export async function execIn(docker: Docker, container: string, cmd: string[]): Promise<{ exitCode: number | null; output: string }> {
  const exec = await docker.getContainer(container).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => (text += chunk.toString()));
  docker.modem.demuxStream(stream, output, output);
  await once(stream, "end");
  const { ExitCode } = await exec.inspect();
  return { exitCode: ExitCode, output: text };
}
