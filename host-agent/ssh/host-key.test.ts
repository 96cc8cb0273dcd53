// The agent's SSH host key: made once, kept with mode 0600 and read back the same on the next start;
// never one ssh2 cannot read (it makes such an ed25519 key about once in 250, which stopped the agent
// at every start); one kept unreadable is replaced.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ssh2 from "ssh2";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { loadOrCreateHostKey } from "./host-key.ts";

const state = useTempDir("host-key-");

describe("the agent's SSH host key", () => {
  it("is made on the first start and kept: the next start reads the same key", async () => {
    const dir = join(state.path, "once");
    const first = await loadOrCreateHostKey(dir);
    expect(first.publicLine).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/=]+$/);
    expect(statSync(join(dir, "ssh_host_ed25519_key")).mode & 0o777).toBe(0o600);
    expect(await loadOrCreateHostKey(dir)).toEqual(first);
  });

  it("is always one ssh2 reads back, over a thousand first starts", async () => {
    for (let i = 0; i < 1000; i++) {
      const dir = join(state.path, `start-${i}`);
      const key = await loadOrCreateHostKey(dir);
      expect(ssh2.utils.parseKey(readFileSync(join(dir, "ssh_host_ed25519_key"), "utf8")), `start ${i}`).not.toBeInstanceOf(Error);
      expect(key.publicLine.startsWith("ssh-ed25519 ")).toBe(true);
    }
  });

  it("replaces a kept key it cannot read instead of stopping the agent", async () => {
    const dir = join(state.path, "broken");
    await loadOrCreateHostKey(dir);
    writeFileSync(join(dir, "ssh_host_ed25519_key"), "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n");
    const replaced = await loadOrCreateHostKey(dir);
    expect(replaced.publicLine).toMatch(/^ssh-ed25519 /);
    expect(await loadOrCreateHostKey(dir)).toEqual(replaced);
  });
});
