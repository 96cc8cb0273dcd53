// What the objects keep on disk: no password, session, invitation or API key in clear, only their
// hashes; and no instance token at all (it is derived when needed).
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, callJson, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { proxyGet, runningInstance } from "../../test/support/workerd/proxy-host.ts";
import { asBrowser, signIn, signUp } from "../../test/support/workerd/session-client.ts";
import { sha256Hex } from "../../core/hash.ts";

/** Every row of every table of an object, as text. */
function dumpStorage(stub: DurableObjectStub): Promise<string> {
  return runInDurableObject(stub, (_, state) => {
    const sql = state.storage.sql;
    const tables = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
      .toArray().map((t) => t.name);
    return JSON.stringify(Object.fromEntries(tables.map((table) => [table, sql.exec(`SELECT * FROM "${table}"`).toArray()])));
  });
}

describe("secrets at rest", () => {
  it("the AccountDO, the PersonDO and the EmailDO store no password, session, invitation or API key in clear", async () => {
    const account = await signUp();
    const laptop = await signIn(account.email, account.password);
    const newPassword = "another long passphrase";
    expect((await asBrowser("POST", "/v1/auth/password", account.session, { body: { current_password: account.password, new_password: newPassword } })).status).toBe(204);
    const phone = await signIn(account.email, newPassword);
    const ownKey = (await asBrowser("POST", "/v1/keys", account.session, { body: { name: "mine" } })).body.key as string;
    const operatorKey = (await admin("POST", `/accounts/${account.id}/keys`, { name: "ops" })).body.key as string;
    const invitation = new URL((await asBrowser("POST", "/v1/members/invitations", account.session, { body: { email: "invited@example.com", role: "viewer" } })).body.url as string).hash.slice(1);
    expect((await callJson("GET", "/v1/me", { key: ownKey })).status).toBe(200);

    const stored = (await dumpStorage(env.ACCOUNTS.getByName(account.id))) + (await dumpStorage(env.PERSONS.getByName(account.userId))) +
      (await dumpStorage(env.EMAILS.getByName(account.email)));
    const secrets = [account.password, newPassword, account.session, laptop, phone, ownKey, operatorKey, invitation];
    for (const secret of secrets) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.split("_").at(-1)!);
    }
    // What is there instead: the SHA-256 of the live session and keys, and one salted password hash.
    expect(stored).toContain(await sha256Hex(account.session));
    expect(stored).toContain(await sha256Hex(phone));
    expect(stored).not.toContain(await sha256Hex(laptop));
    expect(stored).toContain(await sha256Hex(ownKey));
    expect(stored).toContain(await sha256Hex(invitation));
    const password = await runInDurableObject(env.PERSONS.getByName(account.userId), (_, state) =>
      state.storage.sql.exec<{ algorithm: string; iterations: number; salt: string; hash: string }>("SELECT * FROM password").toArray());
    expect(password).toEqual([{ algorithm: "PBKDF2-SHA256", iterations: 100_000, salt: expect.stringMatching(/^[0-9a-f]{32}$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/), updated_at: expect.any(String) }]);
  });

  it("no object stores an instance token: not the AccountDO, the MachineDO, the FleetDO, the PersonDO nor the EmailDO", async () => {
    await seedGpuModels();
    const agent = await FakeAgent.register("secrets-host");
    await agent.connect(["h100-80gb"]);
    agent.serveHttp();
    const account = await signUp();
    await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 10_000_000 });
    const key = (await asBrowser("POST", "/v1/keys", account.session, { body: { name: "mine" } })).body.key as string;
    const instance = await runningInstance(agent, key);
    // The token is real: the container was given it, and it opens the proxy.
    expect((await agent.waitForCommand(instance.id, "create")).spec!.env.INSTANCE_TOKEN).toBe(instance.token);
    expect((await proxyGet(instance.id, instance.token)).status).toBe(200);
    const stored = [
      await dumpStorage(env.ACCOUNTS.getByName(account.id)),
      await dumpStorage(env.MACHINES.getByName(String(agent.machineId))),
      await dumpStorage(env.FLEET.getByName("fleet")),
      await dumpStorage(env.PERSONS.getByName(account.userId)),
      await dumpStorage(env.EMAILS.getByName(account.email)),
    ].join("");
    expect(stored).toContain(instance.id);
    expect(stored).not.toContain(instance.token);
    expect(stored).not.toContain(instance.token.split("_").at(-1)!);
    expect(stored).not.toContain(await sha256Hex(instance.token));
  });
});
