// The OpenSSH tools the SSH tests drive (Debian's openssh-client, openssh-sftp-server, rsync; the CI
// provisioning installs them with scripts/ci/podman.sh). Without them those tests are skipped, saying
// why; with REQUIRE_OPENSSH=1 (.ci/run) a missing tool is a failure, not a skip.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const TOOLS = ["ssh", "ssh-keygen", "sftp", "scp", "rsync"];
const SFTP_SERVER = "/usr/lib/openssh/sftp-server";

const onPath = (tool: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

const missing = [...TOOLS.filter((tool) => !onPath(tool)), ...(existsSync(SFTP_SERVER) ? [] : [SFTP_SERVER])];

/** Why the SSH tests cannot run here, or null when they can. */
export const missingOpenSsh = missing.length === 0 ? null : `${missing.join(", ")} missing: install them with scripts/ci/podman.sh (as root)`;
export const openSshRequired = process.env.REQUIRE_OPENSSH === "1";
