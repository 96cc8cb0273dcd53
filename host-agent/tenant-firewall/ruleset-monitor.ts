// Tells of each change to the host's nftables ruleset as it happens, from `nft monitor`: a flush (an
// nftables restart), a deleted table, a rule replaced. The watch (rules-watch.ts) checks the tenant
// table on each, so a table taken away is put back in well under a second, not at the next timed
// check. Should nft monitor end, it is started again; the timed check covers the gap.
import { spawn } from "node:child_process";
import type { Logger } from "../log.ts";

const RESTART_MS = 5_000;

export function followRulesetChanges(onChange: () => void, log: Logger): { close(): void } {
  let closed = false;
  let restart: NodeJS.Timeout | undefined;
  // Said once per cause: an agent that may not run nft monitor (not root) would say it every few seconds.
  let lastEnd = "";
  let stop = () => {};
  const start = () => {
    const child = spawn("nft", ["monitor"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", () => onChange());
    child.stderr.setEncoding("utf8").on("data", (text: string) => (output = (output + text).slice(-500)));
    let ended = false;
    const end = (why: string) => {
      if (ended || closed) return;
      ended = true;
      if (`${why} ${output}` !== lastEnd) log.warn("nft monitor ended: the tenant firewall is checked on its timer until it runs again", { why, output: output.trim() });
      lastEnd = `${why} ${output}`;
      restart = setTimeout(start, RESTART_MS);
    };
    child.on("error", (error) => end(error.message));
    child.on("close", (code, signal) => end(`exit ${code ?? signal}`));
    stop = () => child.kill();
  };
  start();
  return {
    close() {
      closed = true;
      clearTimeout(restart);
      stop();
    },
  };
}
