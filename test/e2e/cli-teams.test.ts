// `gpu members` and `gpu accounts` as a subprocess against the real local stack. The dev account's
// owner invites with the CLI, the invited person accepts the link as the dashboard's /invite page
// does (POST /v1/auth/accept-invitation), is listed, has their role changed and is removed with the
// keys they made; a person in two accounts keeps a key of each in the CLI's config and goes between
// them. Each refusal is the API's message (or the CLI's own) and exit 1.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ok } from "../../client/index.ts";
import { testTempDir, useTempDir } from "../support/agent/temp-dir.ts";
import { useE2eStack } from "./support/e2e-stack.ts";
import { cliEnv, runGpu } from "./support/gpu-cli.ts";
import { SessionBrowser } from "./support/session-browser.ts";

const stack = useE2eStack({ AUTH_RATE_LIMIT_PER_MIN: "1000" });
const ownerHome = useTempDir("gpu-teams-owner-");
let owner: NodeJS.ProcessEnv;

const gpu = (...args: string[]) => runGpu(args, owner);
const email = (tag: string) => `${tag}-${Date.now().toString(36)}@example.com`;
const rows = (stdout: string) => stdout.trimEnd().split("\n").map((line) => line.split("\t"));
const members = () => ok(stack.client.GET("/v1/members"));

interface Me {
  account: { id: string; name: string; role: string };
  user: { id: string; email: string } | null;
}

/** An invitation made with `gpu members invite`: the link it printed, and the token in the link's fragment. */
async function invite(address: string, role: string): Promise<{ url: string; token: string }> {
  const invited = await gpu("members", "invite", address, "--role", role);
  expect(invited).toMatchObject({ code: 0, stderr: "" });
  const url = invited.stdout.trim();
  expect(url).toMatch(new RegExp(`^${stack.baseUrl}/invite#gpv_${stack.setup.account.id}_[a-z2-7]+$`));
  return { url, token: url.split("#")[1]! };
}

/** A key made by a signed-in person in the account their session is in. */
async function keyOf(person: SessionBrowser): Promise<string> {
  const made = await person.send<{ key: string }>("POST", "/v1/keys", { name: "laptop" });
  expect(made.status).toBe(201);
  return made.body.key;
}

beforeAll(() => {
  owner = cliEnv(ownerHome.path, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
});

describe("gpu members", () => {
  it("invite prints the link; the person accepts it and is listed with that role; role changes it; rm asks first, then removes them and revokes their keys", async () => {
    const address = email("grace");
    const { token } = await invite(address, "developer");
    const json = await gpu("members", "invite", email("linus"), "--role", "viewer", "--json");
    expect(JSON.parse(json.stdout)).toMatchObject({ email: expect.stringMatching(/^linus-/), role: "viewer", url: expect.stringContaining("/invite#gpv_") });
    expect((await ok(stack.client.GET("/v1/members/invitations"))).items.map((i) => i.email)).toEqual(expect.arrayContaining([address, expect.stringMatching(/^linus-/)]));

    const grace = new SessionBrowser(stack.baseUrl);
    const accepted = await grace.send<Me>("POST", "/v1/auth/accept-invitation", { token, password: "a long passphrase" });
    expect(accepted).toMatchObject({ status: 200, body: { account: { id: stack.setup.account.id, role: "developer" }, user: { email: address } } });
    const graceId = accepted.body.user!.id;
    const graceKey = await keyOf(grace);

    const listed = await gpu("members", "ls");
    expect(listed).toMatchObject({ code: 0, stderr: "" });
    expect(rows(listed.stdout)).toEqual(expect.arrayContaining([
      [expect.stringMatching(/^usr-/), "dev@localhost", "owner", expect.any(String), expect.any(String)],
      [graceId, address, "developer", expect.any(String), expect.any(String)],
    ]));
    expect(JSON.parse((await gpu("members", "ls", "--json")).stdout)).toEqual(await members());

    expect(await gpu("members", "role", address, "viewer")).toEqual({ code: 0, stdout: `${address} is now viewer\n`, stderr: "" });
    const changed = JSON.parse((await gpu("members", "role", graceId, "developer", "--json")).stdout) as { role: string };
    expect(changed).toMatchObject({ user_id: graceId, email: address, role: "developer" });
    expect((await members()).items.find((m) => m.user_id === graceId)?.role).toBe("developer");

    // What a developer's key may not do is refused, naming the roles that may.
    const asGrace = cliEnv(testTempDir("gpu-teams-grace-"), { GPU_API_URL: stack.baseUrl, GPU_API_KEY: graceKey });
    expect(await runGpu(["members", "invite", email("eve"), "--role", "admin"], asGrace)).toMatchObject({
      code: 1, stdout: "", stderr: expect.stringMatching(/^error: .*owner or admin.*\(forbidden, HTTP 403\)\n$/),
    });
    expect(await runGpu(["members", "rm", "dev@localhost", "--yes"], asGrace)).toMatchObject({ code: 1, stderr: expect.stringContaining("(forbidden, HTTP 403)") });

    expect(await gpu("members", "role", "nobody@example.com", "viewer")).toEqual({ code: 1, stdout: "", stderr: "error: no member nobody@example.com in this account; `gpu members ls` lists them\n" });
    expect(await gpu("members", "role", address, "emperor")).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .*role.*\(invalid, HTTP 400\)\n$/) });
    expect(await gpu("members", "role", "dev@localhost", "admin")).toMatchObject({ code: 1, stderr: expect.stringContaining("(conflict, HTTP 409)") });
    expect(await gpu("members", "invite", email("ivy"))).toMatchObject({ code: 2, stderr: expect.stringContaining("--role") });

    expect(await gpu("members", "rm", address)).toEqual({ code: 1, stdout: "", stderr: `error: removing ${address} revokes the API keys they created: pass --yes to confirm\n` });
    expect((await members()).items.map((m) => m.user_id)).toContain(graceId);
    expect(await gpu("members", "rm", address, "--yes")).toEqual({ code: 0, stdout: `Removed ${address} (${graceId}); 1 API key they created revoked\n`, stderr: "" });
    expect((await members()).items.map((m) => m.user_id)).not.toContain(graceId);
    expect((await stack.api("GET", "/v1/me", undefined, graceKey)).status).toBe(401);
    expect((await grace.send("GET", "/v1/instances")).status).toBe(403);
  }, 120_000);
});

describe("gpu accounts", () => {
  it("a person with a key of each of their accounts lists them with their role in each, and switches by name or id", async () => {
    const address = email("ada");
    const ada = new SessionBrowser(stack.baseUrl);
    const signup = await ada.send<Me>("POST", "/v1/auth/signup", { email: address, password: "a long passphrase" });
    expect(signup.status).toBe(201);
    const own = signup.body.account.id;
    const ownKey = await keyOf(ada);
    const { token } = await invite(address, "developer");
    expect((await ada.send("POST", "/v1/auth/accept-invitation", { token })).status).toBe(200);
    expect(await ada.send("POST", "/v1/auth/switch", { account_id: stack.setup.account.id })).toMatchObject({ status: 200, body: { account: { id: stack.setup.account.id, role: "developer" } } });
    const teamKey = await keyOf(ada);

    const home = testTempDir("gpu-teams-ada-");
    const env = cliEnv(home);
    const adaGpu = (...args: string[]) => runGpu(args, env);
    expect(await adaGpu("accounts", "ls")).toEqual({ code: 1, stdout: "", stderr: "error: no saved keys: run `gpu login` with a key of each account\n" });
    expect((await adaGpu("login", "--url", stack.baseUrl, "--key", ownKey)).code).toBe(0);
    expect((await adaGpu("login", "--url", stack.baseUrl, "--key", teamKey)).code).toBe(0);

    expect(await adaGpu("accounts", "ls")).toEqual({ code: 0, stdout: `\t${own}\t${address}\towner\n*\t${stack.setup.account.id}\tdev@localhost\tdeveloper\n`, stderr: "" });
    expect(JSON.parse((await adaGpu("accounts", "ls", "--json")).stdout)).toEqual({
      current: stack.setup.account.id,
      accounts: [{ id: own, name: address, role: "owner" }, { id: stack.setup.account.id, name: "dev@localhost", role: "developer" }],
    });

    expect(await adaGpu("accounts", "switch", address)).toEqual({ code: 0, stdout: `Using ${address} (${own}) as owner\n`, stderr: "" });
    expect(JSON.parse((await adaGpu("balance", "--json")).stdout)).toMatchObject({ account: { id: own, role: "owner" } });
    expect(JSON.parse(readFileSync(join(home, "gpu-rental", "config.json"), "utf8"))).toMatchObject({ api_url: stack.baseUrl, api_key: ownKey });
    expect(JSON.parse((await adaGpu("accounts", "switch", stack.setup.account.id, "--json")).stdout)).toMatchObject({ account: { id: stack.setup.account.id, role: "developer" } });
    expect(JSON.parse((await adaGpu("accounts", "ls", "--json")).stdout)).toMatchObject({ current: stack.setup.account.id });
    expect(await adaGpu("members", "invite", email("eve"), "--role", "viewer")).toMatchObject({ code: 1, stderr: expect.stringContaining("(forbidden, HTTP 403)") });

    // Nothing changes on a refusal: an account no saved key reaches, two of one name, GPU_API_KEY in force.
    const file = join(home, "gpu-rental", "config.json");
    const before = readFileSync(file, "utf8");
    expect(await adaGpu("accounts", "switch", "acc-aaaaaaaaaaaaaaaa")).toEqual({
      code: 1, stdout: "", stderr: "error: no saved key reaches an account acc-aaaaaaaaaaaaaaaa: `gpu accounts ls` lists them; `gpu login` with a key of it adds it\n",
    });
    expect((await stack.api("PATCH", "/v1/account", { name: "dev@localhost" }, ownKey)).status).toBe(200);
    expect(await adaGpu("accounts", "switch", "dev@localhost")).toEqual({
      code: 1, stdout: "", stderr: `error: 2 accounts are named dev@localhost (${own}, ${stack.setup.account.id}): name one by its id\n`,
    });
    expect(await runGpu(["accounts", "switch", own], { ...env, GPU_API_KEY: teamKey })).toEqual({
      code: 1, stdout: "", stderr: "error: GPU_API_KEY is set, and it wins over the saved keys: unset it to switch accounts\n",
    });
    expect(readFileSync(file, "utf8")).toBe(before);
    // A key given by GPU_API_KEY is the one in use, saved or not.
    const dev = stack.setup.account.id;
    expect(await runGpu(["accounts", "ls"], { ...env, GPU_API_KEY: stack.key })).toEqual({
      code: 0, stdout: `*\t${dev}\tdev@localhost\towner\n\t${own}\tdev@localhost\towner\n\t${dev}\tdev@localhost\tdeveloper\n`, stderr: "",
    });

    // Removed from the team: its key no longer works, and the list says so and shows the rest.
    expect((await gpu("members", "rm", address, "--yes")).code).toBe(0);
    const after = await adaGpu("accounts", "ls");
    expect(after).toMatchObject({ code: 0, stdout: `\t${own}\tdev@localhost\towner\n` });
    expect(after.stderr).toMatch(new RegExp(`^warning: the key saved for ${stack.setup.account.id} at ${stack.baseUrl} no longer works: .*\\(unauthorized, HTTP 401\\)\\n$`));
  }, 120_000);
});
