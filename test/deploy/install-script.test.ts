// deploy/host-agent/install.sh refuses what it cannot install, before it writes anything; its
// pull-proxy.sh points dockerd's pulls at an egress guard, restarting docker only when that changed.
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = new URL("../../deploy/host-agent/install.sh", import.meta.url).pathname;
const PULL_PROXY_SCRIPT = new URL("../../deploy/host-agent/pull-proxy.sh", import.meta.url).pathname;
const TOKEN = `gma_7_${"a".repeat(32)}`;
const PROXY_RULE = "--pull-proxy (or PULL_PROXY) must be the egress guard's URL, http(s)://HOST[:PORT] (no path, no credentials)";

type Run = { code: number; stdout: string; stderr: string };

function run(file: string, argv: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return promisify(execFile)(file, argv, { env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

async function install(args: string[], asUser = false, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const [file, argv] = asUser ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "bash", SCRIPT, ...args]] : ["bash", [SCRIPT, ...args]];
  return run(file, argv, { PATH: process.env.PATH, ...env });
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
    [["--server", "https://api.example.com", "--token", TOKEN, "--pull-proxy", "ftp://guard:3128"], PROXY_RULE],
    [["--server", "https://api.example.com", "--token", TOKEN, "--pull-proxy", "http://user:secret@guard:3128"], PROXY_RULE],
    [["--server", "https://api.example.com", "--token", TOKEN, "--pull-proxy", "http://guard:3128/path"], PROXY_RULE],
    [["--server", "https://api.example.com", "--token", TOKEN, "--pull-proxy", "http://guard:3128\nExecStartPre=/bin/sh"], PROXY_RULE],
  ])("refuses %j before writing anything", async (args, message) => {
    expect(await install(args)).toMatchObject({ code: 1, stderr: `install.sh: ${message}\n` });
  });

  it.skipIf(process.getuid?.() !== 0)("reads the egress guard from PULL_PROXY too, and takes a guard's URL (then finds the package missing)", async () => {
    expect(await install(["--server", "https://api.example.com", "--token", TOKEN], false, { PULL_PROXY: "http://10.0.0.1:3128 x" })).toMatchObject({ code: 1, stderr: `install.sh: ${PROXY_RULE}\n` });
    expect(await install(["--server", "https://api.example.com", "--token", TOKEN, "--pull-proxy", "http://127.0.0.1:3128"])).toMatchObject({
      code: 1, stderr: expect.stringMatching(/agent.mjs is missing/),
    });
  });
});

describe("pull-proxy.sh", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  /** A folder for the drop-in, and a systemctl on PATH that records its calls instead of restarting anything. */
  async function stage(): Promise<{ dropins: string; calls: () => Promise<string>; env: NodeJS.ProcessEnv }> {
    const dir = await mkdtemp(join(tmpdir(), "pull-proxy-"));
    dirs.push(dir);
    const systemctl = join(dir, "systemctl");
    await writeFile(systemctl, `#!/bin/sh\necho "$*" >> ${join(dir, "calls")}\n`);
    await chmod(systemctl, 0o755);
    return { dropins: join(dir, "docker.service.d"), calls: () => readFile(join(dir, "calls"), "utf8").catch(() => ""), env: { PATH: `${dir}:${process.env.PATH}` } };
  }

  it("writes docker.service's drop-in with the guard as dockerd's proxy and restarts docker, once: the same setting again restarts nothing", async () => {
    const { dropins, calls, env } = await stage();
    expect(await run("bash", [PULL_PROXY_SCRIPT, "http://127.0.0.1:3128", dropins], env)).toMatchObject({ code: 0, stderr: "pull-proxy.sh: docker restarted to pull through http://127.0.0.1:3128\n" });
    expect(await readFile(join(dropins, "gpu-rental-pull-proxy.conf"), "utf8")).toBe(
      "# Written by gpu-rental install.sh --pull-proxy: dockerd pulls images through the egress guard.\n[Service]\n" +
        'Environment="HTTPS_PROXY=http://127.0.0.1:3128" "HTTP_PROXY=http://127.0.0.1:3128" "NO_PROXY="\n',
    );
    expect(await calls()).toBe("daemon-reload\nrestart docker\n");
    expect(await run("bash", [PULL_PROXY_SCRIPT, "http://127.0.0.1:3128", dropins], env)).toMatchObject({ code: 0, stderr: "" });
    expect(await calls()).toBe("daemon-reload\nrestart docker\n");
    await run("bash", [PULL_PROXY_SCRIPT, "https://guard.internal:8443", dropins], env);
    expect(await readFile(join(dropins, "gpu-rental-pull-proxy.conf"), "utf8")).toContain('"HTTPS_PROXY=https://guard.internal:8443"');
    expect(await calls()).toBe("daemon-reload\nrestart docker\ndaemon-reload\nrestart docker\n");
  });

  it("refuses a URL that is not a guard's, writing nothing", async () => {
    const { dropins, calls, env } = await stage();
    expect(await run("bash", [PULL_PROXY_SCRIPT, "http://guard:3128\"\nExecStartPre=/bin/sh", dropins], env)).toMatchObject({
      code: 1, stderr: expect.stringMatching(/^pull-proxy.sh: the egress guard's URL must be http\(s\):\/\/HOST\[:PORT\]/),
    });
    expect(await readFile(join(dropins, "gpu-rental-pull-proxy.conf"), "utf8").catch(() => "none")).toBe("none");
    expect(await calls()).toBe("");
  });
});
