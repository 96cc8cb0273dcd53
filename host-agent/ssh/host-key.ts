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
  const privateKey = kept ?? (await createHostKey(stateDir, file));
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) throw new Error(`the SSH host key in ${file} is unreadable: ${parsed.message}`);
  return { privateKey, publicLine: `${parsed.type} ${parsed.getPublicSSH().toString("base64")}` };
}

async function createHostKey(stateDir: string, file: string): Promise<string> {
  const { private: privateKey } = ssh2.utils.generateKeyPairSync("ed25519");
  await mkdir(stateDir, { recursive: true });
  // Written whole, then renamed: a crash never leaves half a key.
  await writeFile(`${file}.tmp`, privateKey, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return privateKey;
}
