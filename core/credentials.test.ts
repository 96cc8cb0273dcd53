// Instance tokens are derived, not stored: the same inputs always give the same token, in the
// credential format the proxy recognises; any other instance, account or secret gives another. Web
// app tickets and sessions name the instance they open.
import { describe, expect, it } from "vitest";
import { appSessionTokens, appTickets, instanceTokenFor, instanceTokens, invitationTokens, personSessionOwner, sessionTokens } from "./credentials.ts";

const ACCOUNT = "acc-abcdefghijklmnop";

describe("instance tokens", () => {
  it("are gpi_<account>_ and the first 160 bits of HMAC-SHA256(secret, instance id) in base32", async () => {
    // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?") = 5bdcc146bf60754e6a04...
    expect(await instanceTokenFor("Jefe", ACCOUNT, "what do ya want for nothing?")).toBe(`gpi_${ACCOUNT}_lpomcrv7mb2u42qeeqtarflvy5naapyi`);
  });

  it("are stable, recognised as the account's, and differ per instance, account and secret", async () => {
    const token = await instanceTokenFor("secret-1", ACCOUNT, "i-aaabaaaaaaaaaaaa");
    expect(token).toMatch(/^gpi_acc-[a-z2-7]{16}_[a-z2-7]{32}$/);
    expect(instanceTokens.ownerOf(token)).toBe(ACCOUNT);
    expect(await instanceTokenFor("secret-1", ACCOUNT, "i-aaabaaaaaaaaaaaa")).toBe(token);
    const others = [
      await instanceTokenFor("secret-1", ACCOUNT, "i-aaabaaaaaaaaaaab"),
      await instanceTokenFor("secret-2", ACCOUNT, "i-aaabaaaaaaaaaaaa"),
    ];
    for (const other of others) expect(other.split("_").at(-1)).not.toBe(token.split("_").at(-1));
    expect(await instanceTokenFor("secret-1", "acc-bbbbbbbbbbbbbbbb", "i-aaabaaaaaaaaaaaa")).toBe(token.replace(ACCOUNT, "acc-bbbbbbbbbbbbbbbb"));
  });

  it("cannot be made without the secret", async () => {
    await expect(instanceTokenFor("", ACCOUNT, "i-aaabaaaaaaaaaaaa")).rejects.toThrow("INSTANCE_TOKEN_SECRET is not set");
  });
});

describe("web app tickets and sessions", () => {
  const INSTANCE = "i-aaabcdefghijklmn";

  it("carry the instance they open (which names its machine) and a 160-bit secret", () => {
    for (const format of [appTickets, appSessionTokens]) {
      const credential = format.issue(INSTANCE);
      expect(credential).toMatch(new RegExp(`^${format.prefix}${INSTANCE}_[a-z2-7]{32}$`));
      expect(format.ownerOf(credential)).toBe(INSTANCE);
      expect(format.issue(INSTANCE)).not.toBe(credential);
    }
    expect(appTickets.prefix).toBe("gpt_");
    expect(appSessionTokens.prefix).toBe("gpa_");
  });

  it("are not each other, nor any other credential", () => {
    const ticket = appTickets.issue(INSTANCE);
    expect(appSessionTokens.ownerOf(ticket)).toBeNull();
    expect(appTickets.ownerOf(appSessionTokens.issue(INSTANCE))).toBeNull();
    expect(appTickets.ownerOf(`gpt_acc-abcdefghijklmnop_${"a".repeat(32)}`)).toBeNull();
    expect(appTickets.ownerOf(`${ticket}x`)).toBeNull();
  });
});

describe("session and invitation tokens", () => {
  const PERSON = "usr-abcdefghijklmnop";

  it("a person's session names the person, whose object checks it; one of before teams names its account's person", () => {
    const session = sessionTokens.issue(PERSON);
    expect(session).toMatch(/^gps_usr-[a-z2-7]{16}_[a-z2-7]{32}$/);
    expect(personSessionOwner(session)).toBe(PERSON);
    expect(personSessionOwner(`gps_${ACCOUNT}_${"a".repeat(32)}`)).toBe(PERSON);
    for (const other of [`gps_key-abcdefghijklmnop_${"a".repeat(32)}`, `gpk_${ACCOUNT}_${"a".repeat(32)}`, `${session}x`, "gps_usr-abc_x"]) {
      expect(personSessionOwner(other)).toBeNull();
    }
  });

  it("an invitation names its account and is no other credential", () => {
    const invitation = invitationTokens.issue(ACCOUNT);
    expect(invitation).toMatch(/^gpv_acc-[a-z2-7]{16}_[a-z2-7]{32}$/);
    expect(invitationTokens.ownerOf(invitation)).toBe(ACCOUNT);
    expect(invitationTokens.ownerOf(`gpv_${PERSON}_${"a".repeat(32)}`)).toBeNull();
    expect(personSessionOwner(invitation)).toBeNull();
  });
});
