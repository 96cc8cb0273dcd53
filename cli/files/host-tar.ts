// The host's tar, which packs what `gpu cp` sends and unpacks what it gets, and a packed archive PUT
// to the files API (PUT /v1/instances/{id}/files?path=<dir>), refused with the API's message.
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { Transform } from "node:stream";
import { CliError } from "../errors.ts";
import { CappedBody, cappedOnTheWay, refusalOf, streamedPut } from "./streamed-put.ts";

/** Runs the host's tar, its stdin or stdout the archive; resolves once it exited well. */
export function tar(args: string[], stdio: "in" | "out") {
  const child = spawn("tar", args, { stdio: stdio === "in" ? ["pipe", "ignore", "pipe"] : ["ignore", "pipe", "pipe"] });
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const exited = once(child, "close").then(([code]) => {
    if (code !== 0) throw new CliError(`tar failed: ${errors.trim() || `exit status ${code}`}`);
  });
  return { child, exited };
}

/** Packs with `tar -c <args>` and PUTs the archive to `url` through `counter` (the progress line); CappedBody when something in front refused its size. */
export async function putTar(url: string, apiKey: string, args: string[], counter: Transform): Promise<void> {
  const pack = tar(["-c", ...args], "out");
  // A refused upload stops reading the archive, and tar then fails: the refusal is what the user is told.
  const packed = pack.exited.catch((error: unknown) => error as CliError);
  const answer = await streamedPut(url, { authorization: `Bearer ${apiKey}`, "content-type": "application/x-tar" }, pack.child.stdout!.pipe(counter));
  if (answer.status < 200 || answer.status > 299) {
    pack.child.kill();
    throw cappedOnTheWay(answer) ? new CappedBody(refusalOf(answer).message) : refusalOf(answer);
  }
  const failed = await packed;
  if (failed) throw failed;
}
