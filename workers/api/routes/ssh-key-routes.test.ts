import { describe, expect, it } from "vitest";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { asBrowser, signUp } from "../../../test/support/workerd/session-client.ts";

// Lines made by ssh-keygen, and the fingerprints `ssh-keygen -lf` printed for them.
const KEYS = {
  ed25519: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r me@ed25519", "SHA256:Gdm3GLZqJi56Xbai39/qyQsCLrQl3OopQ+Vk6ZfzWCQ"],
  p256: ["ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBMF9/FqnENaMUZoHHcQV+tTwFJd1lSedrqlkA9+59w4gqZxTd9fCORD6K/6/Y9uaJyK4ztUtBLj0WAvstZ1X6os= me@ecdsab256", "SHA256:OoxmAckwK/wUlMitJqCgDQcfKfOO+SZXLXNzPJQv8ww"],
  p384: ["ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBI9Rb+QqjaDWttCZVFfLuh3GGZiMUrnE9WZ9qbEeVt8DJpBqsXi8AkMMhQDSg9rIc/9HywlLWsIRAIvBetCm6fTTKFObDHY1tKcmJAudmxh6gjqkvNt07krfLv6IiVAP6w== me@ecdsab384", "SHA256:8ar9SXH7Mh+LJblnKlD4LbaudUjFVR5VvkhAP7MCHmc"],
  p521: ["ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAHutds5TeV0B6veKCl2nzZG9HfbBEdtSyugdBxxHsPkyVXx9S7gxf7dcafNXRO+1U7TXSKGR7iq71hZXXfiUNMdfgCLGk0pE5+HV6Nu1NY9HUrtBI8M/fHWUToiaBrdK4cmXiufCnxicerBe33VFqIpS5caDCMPv/9eQ5ufDw2i6PePMw== me@ecdsab521", "SHA256:s19/xzpJ8eJz0Ai31oldeBgYHj9nFJMohQa5vPfEg7E"],
  rsa2048: ["ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCn31ECAlH/1ccv5qO5I3UU9iV+rziKf/KMKGvzzBjihKMmPkX+QCNMjZJL5TbgQKoCBdRevcSzJqKrEQlv5tnxOK8+DvGl+mbob4YNJTHRgqFOn0esenJ4z0cndCRFJt5v441hL8EyBsxQL6klXuqJqmdt+WXTbAw7OGDpIWLdmoIUDKElAybp56Or+kGYUOpz5oSqGIJS+guz40/1tqxWcsjnEoHj8B9ZjM1MkaWOUAi3eS/R9r2eQkldajhychzQBFaRDEwO2M3l2KwIxLpp/Fp6/unKrrSfLboZKSyaAmcdzNlzbSgWOGGhw/aSQOZBSK8U4ncwRQ33pVxA3kWF me@rsab2048", "SHA256:zAhpdiPYCPY6RXuRLWkTyYwF8ekZBJ8knOVXzlFP2OU"],
} as const;
const RSA_1024 = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC5YuyFxCG1G5u0G9l+pkguetb3SOSGYRJRKtHGgvXOmGfGLq7uWYEHTjro4Y9XECKmzmwRHT6GVpTW2fVbD7yAFiWRihzaql2t0k0aCTI0JqZNHfUauE8wbb33w9fCLCnXH+NgW2PhlcLJnf/sMjAkaLGHkjc8C2CDfWLU86flEw== me@rsab1024";

interface Item { id: string; name: string; type: string; fingerprint: string; created_at: string; last_used_at: string | null }

/** A well-formed ed25519 line whose 32 key bytes are all `n`. */
function ed25519Line(n: number): string {
  const type = new TextEncoder().encode("ssh-ed25519");
  const bytes = new Uint8Array([0, 0, 0, type.length, ...type, 0, 0, 0, 32, ...new Array(32).fill(n)]);
  return `ssh-ed25519 ${btoa(String.fromCharCode(...bytes))} k${n}`;
}

const add = (key: string, body: unknown) => callJson<Item & { error?: string; message?: string }>("POST", "/v1/ssh-keys", { key, body });

describe("/v1/ssh-keys", () => {
  it("adds each accepted type with OpenSSH's fingerprint, lists them oldest first, removes one", async () => {
    const { key } = await newAccount();
    const added: Item[] = [];
    for (const [type, [line, fingerprint]] of Object.entries(KEYS)) {
      const answer = await add(key, { public_key: line });
      expect(answer.status, type).toBe(201);
      expect(answer.body).toEqual({
        id: expect.stringMatching(/^sshk_[a-z2-7]{16}$/), name: line.split(" ")[2], type: line.split(" ")[0], fingerprint,
        created_at: expect.any(String), last_used_at: null,
      });
      added.push(answer.body);
    }
    expect((await callJson<{ items: Item[] }>("GET", "/v1/ssh-keys", { key })).body.items).toEqual(added);
    expect((await callJson("DELETE", `/v1/ssh-keys/${added[0]!.id}`, { key })).status).toBe(204);
    expect((await callJson<{ items: Item[] }>("GET", "/v1/ssh-keys", { key })).body.items).toEqual(added.slice(1));
    expect((await callJson("DELETE", `/v1/ssh-keys/${added[0]!.id}`, { key })).status).toBe(404);
  }, 30_000);

  it("takes the name given over the comment, and a line with surrounding blanks", async () => {
    const { key } = await newAccount();
    const answer = await add(key, { public_key: `  ${KEYS.ed25519[0]}\n`, name: "laptop" });
    expect(answer).toMatchObject({ status: 201, body: { name: "laptop", fingerprint: KEYS.ed25519[1] } });
  });

  it("refuses malformed and weak keys with 400 invalid naming public_key, storing nothing", async () => {
    const { key } = await newAccount();
    const [edType, edBlob] = KEYS.ed25519[0].split(" ") as [string, string];
    const cases: [string, RegExp][] = [
      ["", /^public_key: must be a line like/],
      ["ssh-ed25519", /^public_key: must be a line like/],
      ["ssh-dss AAAAB3NzaC1kc3MAAACBAP", /^public_key: must be one of ssh-ed25519, /],
      [`${edType} not*base64`, /^public_key: the key must be base64/],
      // An ed25519 blob under the RSA name.
      [`ssh-rsa ${edBlob}`, /^public_key: the key's own type must be ssh-rsa/],
      [`${edType} ${edBlob.slice(0, 40)}`, /^public_key: must hold a 32-byte ed25519 key/],
      [RSA_1024, /^public_key: an RSA key must have at least 2048 bits \(this one has 1024\)/],
      [`${KEYS.ed25519[0]}\n${KEYS.p256[0]}`, /^public_key: must be one line/],
      [KEYS.p256[0].replace("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384"), /^public_key: the key's own type must be ecdsa-sha2-nistp384/],
      ["-----BEGIN OPENSSH PRIVATE KEY-----", /^public_key: must be a line like|^public_key: must be one of/],
    ];
    for (const [line, message] of cases) {
      const answer = await add(key, { public_key: line });
      expect(answer.status, line).toBe(400);
      expect(answer.body.error, line).toBe("invalid");
      expect(answer.body.message, line).toMatch(message);
    }
    const missing = await add(key, {});
    expect(missing).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringMatching(/^public_key: /) } });
    expect((await callJson<{ items: Item[] }>("GET", "/v1/ssh-keys", { key })).body.items).toEqual([]);
  });

  it("refuses the same key twice, and a 21st key, with 409 conflict", async () => {
    const { key } = await newAccount();
    expect((await add(key, { public_key: ed25519Line(0) })).status).toBe(201);
    const twice = await add(key, { public_key: ed25519Line(0).replace(" k0", " another-comment"), name: "again" });
    expect(twice).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("already on the account") } });
    for (let n = 1; n < 20; n++) expect((await add(key, { public_key: ed25519Line(n) })).status).toBe(201);
    const over = await add(key, { public_key: ed25519Line(20) });
    expect(over).toMatchObject({ status: 409, body: { error: "conflict", message: "an account holds at most 20 SSH keys; remove one first" } });
    expect((await callJson<{ items: Item[] }>("GET", "/v1/ssh-keys", { key })).body.items).toHaveLength(20);
  }, 30_000);

  it("keeps accounts apart: another account neither lists nor removes a key, and may add the same one", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const { body: mine } = await add(owner.key, { public_key: KEYS.ed25519[0] });
    expect((await callJson<{ items: Item[] }>("GET", "/v1/ssh-keys", { key: other.key })).body.items).toEqual([]);
    expect((await callJson("DELETE", `/v1/ssh-keys/${mine.id}`, { key: other.key })).status).toBe(404);
    expect((await add(other.key, { public_key: KEYS.ed25519[0] })).status).toBe(201);
    expect((await callJson<{ items: Item[] }>("GET", "/v1/ssh-keys", { key: owner.key })).body.items).toEqual([mine]);
  });

  it("needs a credential, and a signed-in browser from this service's pages", async () => {
    expect((await callJson("GET", "/v1/ssh-keys")).status).toBe(401);
    expect((await callJson("POST", "/v1/ssh-keys", { key: "gpr_nosuchkey", body: { public_key: KEYS.ed25519[0] } })).status).toBe(401);
    const account = await signUp();
    expect((await asBrowser("POST", "/v1/ssh-keys", account.session, { body: { public_key: KEYS.ed25519[0] } })).status).toBe(201);
    expect((await asBrowser("POST", "/v1/ssh-keys", account.session, { body: { public_key: KEYS.p256[0] }, origin: "https://evil.example" })).status).toBe(403);
  });
});
