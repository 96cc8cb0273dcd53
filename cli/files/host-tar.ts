// The host's tar, which unpacks what `gpu cp` brings back.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { CliError } from "../errors.ts";

/** Runs `tar -x -C <into>` on the archive written to its stdin; `exited` resolves once it exited well. */
export function untar(into: string) {
  const child = spawn("tar", ["-x", "-C", into], { stdio: ["pipe", "ignore", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = once(child, "close").then(([code]) => {
    if (code !== 0) throw new CliError(`tar failed: ${errors.trim() || `exit status ${code}`}`);
  });
  return { child, exited };
}
