// What `gpu ssh` adds when ssh ends with "Permission denied (publickey)": ssh names none of the keys
// the instance would take, so the hint lists the account's (name, type, fingerprint) and how to
// offer the right one.
import type { components } from "../../client/index.ts";

type SshKey = components["schemas"]["SshKey"];

/** ssh's own line when every key it offered was refused (all the instance's server takes): `root@gpu-i-…: Permission denied (publickey).` */
export const PUBLICKEY_REFUSED = /^[^\s@]+@\S+: Permission denied \(publickey/m;

export function publicKeyHint(id: string, keys: SshKey[]): string {
  if (keys.length === 0) return `gpu ssh: the account has no SSH keys: add yours with \`gpu ssh-keys add\` (~/.ssh/id_ed25519.pub by default, or name a .pub file)`;
  const named = keys.map((key) => `${key.name || key.id} (${key.type} ${key.fingerprint})`).join(", ");
  return [
    `gpu ssh: ${id} takes only the account's SSH keys: ${named}.`,
    `Offer the matching private key with \`gpu ssh -i <file> ${id}\` (\`ssh-keygen -lf <file>\` shows its fingerprint), or add yours with \`gpu ssh-keys add <file>.pub\`.`,
  ].join("\n");
}
