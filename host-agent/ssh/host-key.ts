// The machine's SSH host key: an ed25519 key made on the agent's first start and kept in its state
// dir (readable by the agent's user only), so `ssh` sees the same host across restarts; its public
// line goes to the MachineDO in every hello, and from there to the instances' `ssh.host_key`.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import ssh2 from "ssh2";

export interface SshHostKey {
  /** OpenSSH private key format, for the server. */
  privateKey: string;
  /** `ssh-ed25519 AAAA…`, for known_hosts. */
  publicLine: string;
}

export async function loadOrCreateHostKey(stateDir: string): Promise<SshHostKey> {
  const file = join(stateDir, "ssh_host_ed25519_key");
  const kept = await readFile(file, "utf8").catch(() => null);
  // A kept key ssh2 cannot read (one an earlier agent made and kept unchecked) is replaced rather than
  // stopping the agent at every start: the host's new key reaches the instances with its next hello.
  const readable = kept === null ? null : hostKeyOf(kept);
  return readable ?? (await createHostKey(stateDir, file));
}

/** ssh2 makes an ed25519 key it cannot read back now and then (about 1 in 250): such a key is never kept. */
const MAX_KEY_ATTEMPTS = 20;

async function createHostKey(stateDir: string, file: string): Promise<SshHostKey> {
  for (let attempt = 0; attempt < MAX_KEY_ATTEMPTS; attempt++) {
    const { private: privateKey } = ssh2.utils.generateKeyPairSync("ed25519");
    const key = hostKeyOf(privateKey);
    if (!key) continue;
    await mkdir(stateDir, { recursive: true });
    // Written whole, then renamed: a crash never leaves half a key.
    await writeFile(`${file}.tmp`, privateKey, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    return key;
  }
  throw new Error(`could not make an SSH host key ssh2 can read in ${MAX_KEY_ATTEMPTS} attempts`);
}

function hostKeyOf(privateKey: string): SshHostKey | null {
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) return null;
  return { privateKey, publicLine: `${parsed.type} ${parsed.getPublicSSH().toString("base64")}` };
}
