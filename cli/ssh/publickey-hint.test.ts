// The hint `gpu ssh` prints after ssh's "Permission denied (publickey)": the account's keys, or none.
import { describe, expect, it } from "vitest";
import { PUBLICKEY_REFUSED, publicKeyHint } from "./publickey-hint.ts";

const key = (name: string, fingerprint: string) => ({
  id: "sshk_aaaaaaaaaaaaaaaa", name, type: "ssh-ed25519" as const, fingerprint, created_at: "2026-11-21T12:00:00.000Z", last_used_at: null,
});

describe("publicKeyHint", () => {
  it("names each of the account's keys with its type and fingerprint, and says how to offer one", () => {
    const hint = publicKeyHint("i-abcdefghijklmnop", [key("laptop", "SHA256:one"), key("", "SHA256:two")]);
    expect(hint.split("\n")).toEqual([
      "gpu ssh: i-abcdefghijklmnop takes only the account's SSH keys: laptop (ssh-ed25519 SHA256:one), sshk_aaaaaaaaaaaaaaaa (ssh-ed25519 SHA256:two).",
      "Offer the matching private key with `gpu ssh -i <file> i-abcdefghijklmnop` (`ssh-keygen -lf <file>` shows its fingerprint), or add yours with `gpu ssh-keys add <file>.pub`.",
    ]);
  });

  it("says the account has none, and how to add one", () => {
    expect(publicKeyHint("i-abcdefghijklmnop", [])).toBe(
      "gpu ssh: the account has no SSH keys: add yours with `gpu ssh-keys add` (~/.ssh/id_ed25519.pub by default, or name a .pub file)",
    );
  });

  it("is given for ssh's own refusal line, not for the same words a command printed", () => {
    expect(PUBLICKEY_REFUSED.test("debug1: x\nroot@gpu-i-abcdefghijklmnop: Permission denied (publickey).\n")).toBe(true);
    expect(PUBLICKEY_REFUSED.test("Permission denied (publickey)\n")).toBe(false);
  });
});
