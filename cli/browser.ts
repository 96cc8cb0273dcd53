// Opening an address in the user's default browser (xdg-open, or open on macOS).
import { spawn } from "node:child_process";
import { CliError } from "./errors.ts";

export function openInBrowser(url: string): Promise<void> {
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  return new Promise((resolve, reject) => {
    const child = spawn(opener, [url], { stdio: "ignore", detached: true });
    child.once("error", () => reject(new CliError(`could not run ${opener}: open this address yourself: ${url}`)));
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}
