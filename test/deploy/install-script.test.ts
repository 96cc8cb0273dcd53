// deploy/host-agent/install.sh refuses what it cannot install, before it writes anything.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const SCRIPT = new URL("../../deploy/host-agent/install.sh", import.meta.url).pathname;
const TOKEN = `gma_7_${"a".repeat(32)}`;

async function install(args: string[], asUser = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const [file, argv] = asUser ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "bash", SCRIPT, ...args]] : ["bash", [SCRIPT, ...args]];
  return promisify(execFile)(file, argv, { env: { PATH: process.env.PATH } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe("install.sh", () => {
  it("--help prints how to run it", async () => {
    const { code, stdout } = await install(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("sudo ./install.sh --server https://api.example.com --token gma_7_...");
  });

  it.skipIf(process.getuid?.() !== 0)("refuses to run as a normal user", async () => {
    expect(await install(["--server", "https://api.example.com", "--token", TOKEN], true)).toMatchObject({
      code: 1,
      stderr: "install.sh: run as root (sudo ./install.sh ...): it writes /opt, /etc and the firewall\n",
    });
  });

  it.skipIf(process.getuid?.() !== 0).each([
    [["--token", TOKEN], "--server must be the service's https base URL, e.g. https://api.example.com (the token must not travel unencrypted)"],
    [["--server", "http://api.example.com", "--token", TOKEN], "--server must be the service's https base URL, e.g. https://api.example.com (the token must not travel unencrypted)"],
    [["--server", "https://api.example.com"], "--token (or AGENT_TOKEN) must be the machine's agent_token, gma_<id>_<32 characters>, from POST /admin/v1/machines"],
    [["--server", "https://api.example.com", "--token", "gma_7_short"], "--token (or AGENT_TOKEN) must be the machine's agent_token, gma_<id>_<32 characters>, from POST /admin/v1/machines"],
    [["--server", "https://api.example.com", "--token", TOKEN, "--network-pool", "10.213.0.0"], "--network-pool must be an IPv4 CIDR like 10.213.0.0/16"],
    [["--server", "https://api.example.com", "--token", TOKEN, "--state-dir", "gpu"], "--state-dir and --cache-dir must be absolute paths"],
    [["--server", "https://api.example.com", "--token", TOKEN, "--unenforced-disk", "maybe"], "--unenforced-disk must be accept or refuse"],
    [["--server", "https://api.example.com", "--token", TOKEN], `${SCRIPT.replace(/install\.sh$/, "")}agent.mjs is missing: run npm run build:agent and copy all of dist/host-agent`],
    [["--bogus"], "unknown option --bogus (see --help)"],
  ])("refuses %j before writing anything", async (args, message) => {
    expect(await install(args)).toMatchObject({ code: 1, stderr: `install.sh: ${message}\n` });
  });
});
