// Shell and files through the whole stack, the agents on the local runtime. SSH with the real OpenSSH
// client: `gpu ssh-keys add`, `gpu ssh` (a command's output and exit status, the key's last use), `ssh -tt` with a PTY,
// `ssh -L` to the instance's HTTP port through `gpu ssh-config --write`, sftp, scp and rsync (the
// host's sftp-server and rsync, as the local runtime's "image"), a removed key refused. Files:
// `gpu cp` of a directory tree both ways, compared by checksums, running and stopped, to a new name as
// `cp -r` gives one; a 600 MB file
// up in resumable parts and back; a directory too big for one tar in several, its big files in parts; a
// part at the wrong offset refused with the size to resume from.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, createReadStream, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { testTempDir, useTempDir } from "../support/agent/temp-dir.ts";
import { freePort, poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { missingOpenSsh, openSshRequired } from "./support/openssh.ts";
import { cliEnv, runCommand, runGpu } from "./support/gpu-cli.ts";
import { planDirectory, uploadDirectory } from "../../cli/files/directory-upload.ts";
import { uploadInParts } from "../../cli/files/upload-in-parts.ts";
import { spawn } from "node:child_process";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { checksums } from "./support/checksums.ts";

const stack = useE2eStack();
/** What the host's own server answers, outside every instance. */
const HOST_ANSWER = "the host answered";
let env: NodeJS.ProcessEnv;
let home: string;
let keyFile: string;
let instance: Instance;

const gpu = (...args: string[]) => runGpu(args, env);
const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
/** A big file's sha256, read as a stream. */
const streamedSha256 = async (file: string) => {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
};
/** The system ssh with the block `gpu ssh-config --write` wrote, and the test's key alone. */
const ssh = (...args: string[]) => runCommand("ssh", ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", ...args], env);

const homeDir = useTempDir("gpu-ssh-home-");

beforeAll(async () => {
  home = homeDir.path;
  env = cliEnv(home, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
  keyFile = join(home, "id_ed25519");
  if (!missingOpenSsh) execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e@test", "-f", keyFile]);
  instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" });
}, 120_000);

if (missingOpenSsh && openSshRequired) {
  describe("SSH into an instance", () => {
    it("needs the OpenSSH tools", () => {
      throw new Error(`REQUIRE_OPENSSH=1 but ${missingOpenSsh}`);
    });
  });
}

describe.skipIf(missingOpenSsh !== null)(`SSH into an instance${missingOpenSsh ? ` (skipped: ${missingOpenSsh})` : ""}`, () => {
  it("ssh-keys add takes the .pub file and shows OpenSSH's fingerprint; ls lists it", async () => {
    const fingerprint = execFileSync("ssh-keygen", ["-lf", `${keyFile}.pub`]).toString().split(" ")[1]!;
    const added = await gpu("ssh-keys", "add", `${keyFile}.pub`);
    expect(added).toMatchObject({ code: 0, stdout: expect.stringContaining(fingerprint) });
    const listed = await gpu("ssh-keys", "ls");
    expect(listed.stdout).toContain("e2e@test");
    expect(listed.stdout).toContain(fingerprint);
  });

  it("the instance shows its host's key, the one ssh then meets", async () => {
    const read = await stack.api<Instance>("GET", `/v1/instances/${instance.id}`);
    const ssh = read.body.ssh!;
    expect(ssh.user).toBe("root");
    expect(ssh.host_key).toMatch(/^ssh-ed25519 AAAA/);
    const lineFile = join(home, "host_key.pub");
    execFileSync("sh", ["-c", `printf '%s\\n' "$1" > "$2"`, "sh", ssh.host_key, lineFile]);
    expect(execFileSync("ssh-keygen", ["-lf", lineFile]).toString().split(" ")[1]).toBe(ssh.host_key_fingerprint);
  });

  it("gpu ssh runs a command: its stdout, stderr and exit status come back, with no host key prompt", async () => {
    const result = await gpu("ssh", instance.id, "-i", keyFile, "--", "echo out-$((6*7)); echo err >&2; pwd; exit 7");
    expect(result.code).toBe(7);
    expect(result.stdout.split("\n")[0]).toBe("out-42");
    expect(result.stderr).toContain("err");
    expect(result.stderr).not.toContain("authenticity");
    const known = readFileSync(join(home, "gpu-rental", "known_hosts"), "utf8");
    expect(known).toContain(`gpu-${instance.id} ssh-ed25519 `);
  });

  it("gpu ssh -i with a key the account lacks: ssh's refusal, then a hint naming the account's keys", async () => {
    const other = join(home, "other_ed25519");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "other@test", "-f", other]);
    const fingerprint = execFileSync("ssh-keygen", ["-lf", `${keyFile}.pub`]).toString().split(" ")[1]!;
    const refused = await gpu("ssh", "-i", other, instance.id, "--", "echo should-not-run");
    expect(refused.code).toBe(255);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("Permission denied (publickey)");
    expect(refused.stderr).toContain(`gpu ssh: ${instance.id} takes only the account's SSH keys: e2e@test (ssh-ed25519 ${fingerprint}).\n`);
    // A command's own failure, or one of its words, is no refusal: no hint.
    const failed = await gpu("ssh", instance.id, "-i", keyFile, "--", "echo 'Permission denied (publickey)' >&2; exit 255");
    expect(failed.code).toBe(255);
    expect(failed.stderr).not.toContain("gpu ssh:");
  });

  it("the key that opened the session shows its last use in ssh-keys ls, not \"never\"", async () => {
    const listed = await poll(() => gpu("ssh-keys", "ls"), (result) => !result.stdout.includes("never"));
    const row = listed.stdout.split("\n").find((line) => line.includes("e2e@test"))!;
    const lastUsed = row.trim().split(/\s+/).at(-1)!;
    expect(Date.now() - Date.parse(lastUsed)).toBeLessThan(5 * 60_000);
  });

  it("ssh-config --write gives ssh a Host block, AES-GCM first; ssh -tt gets a terminal of the size asked", async () => {
    const printed = await gpu("ssh-config");
    expect(printed.stdout).toContain(`Host gpu-${instance.id}\n  ProxyCommand `);
    expect(JSON.parse((await gpu("ssh-config", "--json")).stdout).items.map((i: Instance) => i.id)).toContain(instance.id);
    const written = await gpu("ssh-config", "--write");
    expect(written.code).toBe(0);
    expect(readFileSync(join(home, ".ssh", "config"), "utf8")).toContain(`Include ${join(home, "gpu-rental", "ssh_config")}`);
    const plain = await ssh("-v", `gpu-${instance.id}`, "test -t 0 && echo tty || echo no-tty");
    expect(plain).toMatchObject({ code: 0, stdout: "no-tty\n" });
    // The block asks for AES-GCM first, where OpenSSH's own order would take aes128-ctr and an HMAC.
    expect(plain.stderr).toContain("kex: server->client cipher: aes128-gcm@openssh.com MAC: <implicit>");
    const terminal = await ssh("-tt", `gpu-${instance.id}`, "tty >/dev/null && echo tty; stty size");
    expect(terminal.code).toBe(0);
    // ssh -tt without a terminal of its own asks for 0×0: the server takes 80×24.
    expect(terminal.stdout.replace(/\r/g, "")).toBe("tty\n24 80\n");
  });

  it("ssh -L reaches the instance's HTTP port", async () => {
    const localPort = await freePort();
    const tunnel = spawn("ssh", ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
      "-N", "-L", `127.0.0.1:${localPort}:localhost:8000`, `gpu-${instance.id}`], { env, stdio: "ignore" });
    try {
      const status = await poll(() => fetch(`http://127.0.0.1:${localPort}/health`).then((r) => r.status, () => 0), (s) => s === 200);
      expect(status).toBe(200);
      const models = await (await fetch(`http://127.0.0.1:${localPort}/v1/models`)).json() as { data: unknown[] };
      expect(models.data.length).toBeGreaterThan(0);
    } finally {
      tunnel.kill();
    }
  });

  it("ssh -L to an address outside the instance, or a port it does not have, is refused: each target answers from the host, never through the tunnel", async () => {
    // Every target answers from the host, so only a refusal keeps its answer out of the tunnel: a
    // server of the host's on all its addresses (on loopback, a port the instance does not have; on
    // the host's own network address), and the stack's Worker.
    const server = createServer((_request, response) => response.end(HOST_ANSWER));
    await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
    const port = (server.address() as AddressInfo).port;
    const hostAddress = Object.values(networkInterfaces()).flat().find((address) => address?.family === "IPv4" && !address.internal)?.address;
    const targets = [`localhost:${port}`, `127.0.0.1:${port}`, ...(hostAddress ? [`${hostAddress}:${port}`] : []), stack.baseUrl.replace(/^http:\/\//, "")];
    try {
      for (const target of targets) {
        expect(await throughTunnel(Number(target.split(":").pop()), target.slice(0, target.lastIndexOf(":"))), `${target} from the host`).toMatch(/^HTTP\/1\.1 \d{3} /);
        const localPort = await freePort();
        const tunnel = spawn("ssh", ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
          "-N", "-L", `127.0.0.1:${localPort}:${target}`, `gpu-${instance.id}`], { env, stdio: "ignore" });
        try {
          // Once the tunnel listens, a connection through it is closed without a byte: the server refused the channel.
          const answer = await poll(() => throughTunnel(localPort), (r) => r !== "not listening");
          expect(answer, target).toBe("");
        } finally {
          tunnel.kill();
        }
      }
    } finally {
      server.close();
    }
  });

  it("sftp, scp and rsync -e ssh move files both ways, byte for byte, through the image's own sftp-server and rsync", async () => {
    const local = testTempDir("gpu-ssh-files-");
    const tree = join(local, "tree");
    mkdirSync(join(tree, "nested"), { recursive: true });
    writeFileSync(join(tree, "weights.bin"), randomBytes(3 * 1024 * 1024 + 17));
    writeFileSync(join(tree, "nested", "notes.txt"), "six times seven\n");
    const host = `gpu-${instance.id}`;
    const sshOptions = ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes"];

    const batch = join(local, "batch");
    writeFileSync(batch, `put ${join(tree, "weights.bin")} by-sftp.bin\nget by-sftp.bin ${join(local, "back-sftp.bin")}\n`);
    expect(await runCommand("sftp", [...sshOptions, "-b", batch, host], env)).toMatchObject({ code: 0 });
    expect(sha256(join(local, "back-sftp.bin"))).toBe(sha256(join(tree, "weights.bin")));

    expect(await runCommand("scp", [...sshOptions, "-r", tree, `${host}:by-scp`], env)).toMatchObject({ code: 0 });
    expect(await runCommand("scp", [...sshOptions, "-r", `${host}:by-scp`, join(local, "back-scp")], env)).toMatchObject({ code: 0 });
    expect(sha256(join(local, "back-scp", "weights.bin"))).toBe(sha256(join(tree, "weights.bin")));
    expect(readFileSync(join(local, "back-scp", "nested", "notes.txt"), "utf8")).toBe("six times seven\n");

    const rsh = ["ssh", ...sshOptions].join(" ");
    expect(await runCommand("rsync", ["-a", "-e", rsh, `${tree}/`, `${host}:by-rsync/`], env)).toMatchObject({ code: 0 });
    expect(await runCommand("rsync", ["-a", "-e", rsh, `${host}:by-rsync/`, join(local, "back-rsync")], env)).toMatchObject({ code: 0 });
    expect(sha256(join(local, "back-rsync", "weights.bin"))).toBe(sha256(join(tree, "weights.bin")));
    // They landed in the instance's own folder, where its shell starts.
    expect((await ssh(host, "ls")).stdout.split("\n")).toEqual(expect.arrayContaining(["by-rsync", "by-scp", "by-sftp.bin"]));
  });

  it("a key removed from the account is refused from the next connection on", async () => {
    const { body } = await stack.api<{ items: { id: string }[] }>("GET", "/v1/ssh-keys");
    const removed = await gpu("ssh-keys", "rm", body.items[0]!.id, "--json");
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ items: [] });
    const refused = await ssh(`gpu-${instance.id}`, "echo should-not-run");
    expect(refused.code).toBe(255);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain("Permission denied (publickey)");
    const hinted = await gpu("ssh", "-i", keyFile, instance.id, "--", "echo should-not-run");
    expect(hinted).toMatchObject({ code: 255, stdout: "" });
    expect(hinted.stderr).toContain("gpu ssh: the account has no SSH keys: add yours with `gpu ssh-keys add`");
  });
});

describe("gpu cp", () => {
  const treeDir = useTempDir("gpu-cp-");
  let tree: string;

  beforeAll(() => {
    tree = join(treeDir.path, "dataset");
    mkdirSync(join(tree, "nested", "deeper"), { recursive: true });
    writeFileSync(join(tree, "big.bin"), randomBytes(6 * 1024 * 1024 + 17));
    writeFileSync(join(tree, "nested", "notes.txt"), "résumé ✓\n");
    writeFileSync(join(tree, "nested", "deeper", "empty"), "");
  });

  it("copies a directory tree to /data and back under a new name, every file the same", async () => {
    // In a pipe, one plain line says what was copied (the tar's bytes); --quiet leaves stdout empty.
    expect(await gpu("cp", tree, `${instance.id}:/data`)).toEqual({ code: 0, stdout: `Copied ${tree} -> ${instance.id}:/data (6.3 MB)\n`, stderr: "" });
    const back = join(testTempDir("gpu-cp-back-"), "copy");
    expect(await gpu("cp", `${instance.id}:/data/dataset`, back, "--quiet")).toMatchObject({ code: 0, stdout: "" });
    expect(checksums(back)).toEqual(checksums(tree));
    expect(Object.keys(checksums(back))).toHaveLength(3);
    // One file, into an existing directory.
    const into = testTempDir("gpu-cp-into-");
    expect((await gpu("cp", `${instance.id}:/data/dataset/nested/notes.txt`, into)).code).toBe(0);
    expect(readFileSync(join(into, "notes.txt"), "utf8")).toBe("résumé ✓\n");
    // /data itself, under the name given.
    const whole = join(testTempDir("gpu-cp-whole-"), "all");
    expect((await gpu("cp", `${instance.id}:/data/`, whole)).code).toBe(0);
    expect(checksums(join(whole, "dataset"))).toEqual(checksums(tree));
  });

  it("copies to a name that does not exist as cp -r does, the directory's contents under it; into one that does; a file replaced; a directory onto a file refused", async () => {
    expect(await gpu("cp", tree, `${instance.id}:/data/train`)).toEqual({ code: 0, stdout: `Copied ${tree} -> ${instance.id}:/data/train (6.3 MB)\n`, stderr: "" });
    const back = join(testTempDir("gpu-cp-renamed-"), "train");
    expect((await gpu("cp", `${instance.id}:/data/train`, back)).code).toBe(0);
    expect(checksums(back)).toEqual(checksums(tree));
    // /data/train exists now: the same copy goes inside it.
    expect((await gpu("cp", tree, `${instance.id}:/data/train/`)).code).toBe(0);
    const inside = join(testTempDir("gpu-cp-inside-"), "inside");
    expect((await gpu("cp", `${instance.id}:/data/train/dataset`, inside)).code).toBe(0);
    expect(checksums(inside)).toEqual(checksums(tree));

    const local = join(testTempDir("gpu-cp-file-"), "notes.txt");
    writeFileSync(local, "first\n");
    expect((await gpu("cp", local, `${instance.id}:/data/renamed.txt`)).code).toBe(0);
    writeFileSync(local, "second, replacing it\n");
    expect((await gpu("cp", local, `${instance.id}:/data/renamed.txt`)).code).toBe(0);
    const file = join(testTempDir("gpu-cp-file-back-"), "renamed.txt");
    expect((await gpu("cp", `${instance.id}:/data/renamed.txt`, file)).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("second, replacing it\n");

    expect(await gpu("cp", tree, `${instance.id}:/data/renamed.txt`)).toEqual({
      code: 1, stdout: "", stderr: `error: cannot overwrite the file ${instance.id}:/data/renamed.txt with the directory ${tree}\n`,
    });
    // As cp: the new name's parent must exist.
    expect(await gpu("cp", tree, `${instance.id}:/data/no-such-dir/train`)).toEqual({
      code: 1, stdout: "", stderr: "error: no directory /data/no-such-dir in the instance to extract into (not_found, HTTP 404)\n",
    });
    // A directory too big for one tar, renamed: its big files in parts go under the new name too.
    const root = testTempDir("gpu-cp-renamed-parts-");
    mkdirSync(join(root, "corpus", "shards"), { recursive: true });
    writeFileSync(join(root, "corpus", "shards", "weights.bin"), randomBytes(300_000));
    writeFileSync(join(root, "corpus", "vocab.json"), "{}");
    const transfer = { counter: () => new PassThrough(), bytes: 0, set: () => undefined, skipped: () => undefined };
    await uploadDirectory({ filesUrl: `${stack.baseUrl}/v1/instances/${instance.id}/files`, apiKey: stack.key, to: "/data", parent: root, name: "corpus", as: "corpus-v2", partBytes: 100_000, transfer });
    expect((await gpu("cp", `${instance.id}:/data/corpus-v2`, join(root, "back"))).code).toBe(0);
    expect(checksums(join(root, "back"))).toEqual(checksums(join(root, "corpus")));
  });

  it("copies a 96 MiB file both ways whole (tar's end comes before the stream's)", async () => {
    const dir = testTempDir("gpu-cp-big-");
    writeFileSync(join(dir, "weights.bin"), randomBytes(96 * 1024 * 1024));
    expect((await gpu("cp", join(dir, "weights.bin"), `${instance.id}:/data`)).code).toBe(0);
    const back = await gpu("cp", `${instance.id}:/data/weights.bin`, join(dir, "back.bin"));
    expect(back).toMatchObject({ code: 0, stderr: "" });
    expect(checksums(dir)["back.bin"]).toBe(checksums(dir)["weights.bin"]);
  }, 60_000);

  it("copies a 600 MB file up in parts of 256 MiB and back, the same bytes", async () => {
    const dir = testTempDir("gpu-cp-parts-");
    const file = join(dir, "model.safetensors");
    // Sparse, with random blocks at each part's edges: never held in memory, and a part out of place would show.
    const size = 600 * 1000 * 1000 + 13;
    writeFileSync(file, "");
    const fd = openSync(file, "r+");
    for (const at of [0, 256 * 1024 * 1024 - 4096, 256 * 1024 * 1024, 512 * 1024 * 1024 - 1, size - 65_536]) writeSync(fd, randomBytes(65_536), 0, 65_536, at);
    ftruncateSync(fd, size);
    closeSync(fd);
    expect(await gpu("cp", file, `${instance.id}:/data`)).toEqual({ code: 0, stdout: `Copied ${file} -> ${instance.id}:/data (600.0 MB)\n`, stderr: "" });
    const back = join(dir, "back.safetensors");
    expect(await gpu("cp", `${instance.id}:/data/model.safetensors`, back)).toMatchObject({ code: 0 });
    expect(statSync(back).size).toBe(size);
    expect(await streamedSha256(back)).toBe(await streamedSha256(file));
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it("a directory too big for one tar goes in several, its big files in parts: the same tree comes back", async () => {
    const root = testTempDir("gpu-cp-bigdir-");
    const tree = join(root, "corpus");
    mkdirSync(join(tree, "shards", "empty"), { recursive: true });
    for (let i = 0; i < 6; i++) writeFileSync(join(tree, "shards", `shard-${i}.txt`), randomBytes(40_000));
    writeFileSync(join(tree, "weights.bin"), randomBytes(300_000));
    writeFileSync(join(tree, "shards", "vocab.json"), "{}");
    // Thresholds of 100 kB stand in for 256 MiB: three tars of small files, one file in three parts.
    const plan = await planDirectory(root, "corpus", 100_000);
    expect(plan.tars.length).toBe(3);
    expect(plan.tars[0]).toEqual(["corpus", "corpus/shards", "corpus/shards/empty", "corpus/shards/shard-0.txt", "corpus/shards/shard-1.txt"]);
    expect(plan.big).toEqual([{ name: "corpus/weights.bin", size: 300_000 }]);
    let bytes = 0;
    const transfer = { counter: () => new PassThrough(), get bytes() { return bytes; }, set: (value: number) => void (bytes = value), skipped: () => undefined };
    await uploadDirectory({ filesUrl: `${stack.baseUrl}/v1/instances/${instance.id}/files`, apiKey: stack.key, to: "/data", parent: root, name: "corpus", partBytes: 100_000, transfer });
    expect(bytes).toBe(300_000);
    const back = join(root, "back");
    expect((await gpu("cp", `${instance.id}:/data/corpus`, back)).code).toBe(0);
    expect(checksums(back)).toEqual(checksums(tree));
    expect(statSync(join(back, "shards", "empty")).isDirectory()).toBe(true);
  });

  it("an upload's part at the wrong offset is 409 with the staged size, and the upload resumes from it", async () => {
    const id = "resume-test-upload-0001";
    const url = (offset: number, final = false) =>
      `${stack.baseUrl}/v1/instances/${instance.id}/files?path=/data/resumed.txt&upload=${id}&offset=${offset}${final ? "&final=1" : ""}`;
    const put = (offset: number, body: string, final = false) =>
      fetch(url(offset, final), { method: "PUT", headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/octet-stream" }, body });
    const early = await put(5, "world");
    expect(early.status).toBe(409);
    expect(early.headers.get("upload-offset")).toBe("0");
    expect(await early.json()).toMatchObject({ error: "conflict", message: expect.stringContaining("has 0 bytes staged, not 5") });
    const first = await put(0, "hello ");
    expect(first.status).toBe(202);
    expect(first.headers.get("upload-offset")).toBe("6");
    const again = await put(0, "hello ");
    expect(again.status).toBe(409);
    expect(again.headers.get("upload-offset")).toBe("6");
    const last = await put(Number(again.headers.get("upload-offset")), "world\n", true);
    expect(last.status).toBe(204);
    const copy = join(testTempDir("gpu-cp-resumed-"), "resumed.txt");
    expect((await gpu("cp", `${instance.id}:/data/resumed.txt`, copy)).code).toBe(0);
    expect(readFileSync(copy, "utf8")).toBe("hello world\n");
    // The upload is done: for an hour its id answers with the file's size, and its final part sent again (its answer lost) is 204.
    const done = await put(12, "more");
    expect(done.status).toBe(409);
    expect(done.headers.get("upload-offset")).toBe("12");
    expect(await done.json()).toMatchObject({ error: "conflict", message: expect.stringContaining(`upload ${id} is complete: its 12 bytes were written`) });
    expect((await put(12, "", true)).status).toBe(204);
    expect((await put(6, "world\n", true)).status).toBe(409);

    // gpu cp's uploader, going on with an upload of which the host has the first 1000 bytes: its part from 0 is refused, and it resumes from there.
    const local = join(testTempDir("gpu-cp-resume-"), "resume.bin");
    const content = randomBytes(10_000);
    writeFileSync(local, content);
    const begun = await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/files?path=/data/resume.bin&upload=${id}-cli&offset=0`, {
      method: "PUT", headers: { authorization: `Bearer ${stack.key}` }, body: content.subarray(0, 1000),
    });
    expect(begun.headers.get("upload-offset")).toBe("1000");
    const reported: number[] = [];
    await uploadInParts({
      filesUrl: `${stack.baseUrl}/v1/instances/${instance.id}/files`, apiKey: stack.key, remotePath: "/data/resume.bin", local, size: content.byteLength,
      progress: (bytes) => reported.push(bytes), uploadId: `${id}-cli`, partBytes: 4096,
    });
    expect(reported).toContain(1000);
    expect(reported.at(-1)).toBe(content.byteLength);
    const resumed = join(dirname(local), "back.bin");
    expect((await gpu("cp", `${instance.id}:/data/resume.bin`, resumed)).code).toBe(0);
    expect(readFileSync(resumed).equals(content)).toBe(true);
    // Into a directory that is not there: refused before anything is staged.
    const nowhere = await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/files?path=/data/no-such-dir/x.bin&upload=${id}-b&offset=0&final=1`, {
      method: "PUT", headers: { authorization: `Bearer ${stack.key}` }, body: "x",
    });
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toMatchObject({ error: "not_found", message: expect.stringContaining("no directory /data/no-such-dir") });
  });

  it("a final part whose answer is lost is sent again, not the whole file: the host says the file is whole", async () => {
    // A proxy in front that passes everything on, but drops the connection in place of the first final part's answer.
    let forwarded = 0;
    let dropped = false;
    const edge = await edgeProxy({
      onBody: (chunk) => (forwarded += chunk.byteLength),
      intercept: (request, answer, response) => {
        if (!request.url!.includes("final=1") || dropped) return false;
        dropped = true;
        answer.resume().on("end", () => response.socket?.destroy());
        return true;
      },
    });
    try {
      const { local, content } = await uploadThrough(edge.url, "lost-answer.bin", 1_000_000, 300_000);
      expect(dropped).toBe(true);
      // Every byte once, and the final part's (100 kB) twice: before, the host had forgotten the upload and it began again.
      expect(forwarded).toBe(content.byteLength + 100_000);
      const back = join(dirname(local), "back.bin");
      expect((await gpu("cp", `${instance.id}:/data/lost-answer.bin`, back)).code).toBe(0);
      expect(readFileSync(back).equals(content)).toBe(true);
    } finally {
      await edge.close();
    }
  });

  it("parts and tars that a proxy in front refuses as too large (413, not the API's) are sent again smaller", async () => {
    // A real HTTP proxy in front of the stack that caps request bodies at 1.5 MB, as Cloudflare's plans cap them at 100 to 500 MB.
    // Like nginx, it refuses a body by its Content-Length before the client sends it (the CLI asks first, Expect: 100-continue).
    const refusedLengths: number[] = [];
    const edge = await edgeProxy({
      refuse: (request, response) => {
        const length = Number(request.headers["content-length"] ?? 0);
        if (length <= 1_500_000) return false;
        refusedLengths.push(length);
        response.writeHead(413, { "content-type": "text/html", connection: "close" }).end("<html><h1>413 Request Entity Too Large</h1></html>");
        return true;
      },
    });
    try {
      const { local, content } = await uploadThrough(edge.url, "capped.bin", 5_000_000, 4_000_000);
      expect(refusedLengths).toEqual([4_000_000, 2_000_000]);
      const back = join(dirname(local), "back.bin");
      expect((await gpu("cp", `${instance.id}:/data/capped.bin`, back)).code).toBe(0);
      expect(readFileSync(back).equals(content)).toBe(true);

      // gpu cp itself through that proxy: a 2 MB file, and a directory of 4 MB, each refused whole, go in smaller requests.
      const throughEdge = (...args: string[]) => runGpu(args, { ...env, GPU_API_URL: edge.url });
      const small = join(dirname(local), "two-mb.bin");
      writeFileSync(small, randomBytes(2_000_000));
      expect(await throughEdge("cp", small, `${instance.id}:/data`)).toMatchObject({ code: 0, stderr: "" });
      const tree = join(dirname(local), "capped-tree");
      mkdirSync(join(tree, "inner"), { recursive: true });
      for (let i = 0; i < 4; i++) writeFileSync(join(tree, "inner", `piece-${i}.bin`), randomBytes(700_000));
      writeFileSync(join(tree, "whole.bin"), randomBytes(1_200_000));
      expect(await throughEdge("cp", tree, `${instance.id}:/data`)).toMatchObject({ code: 0, stderr: "" });
      // Each archive is refused by its Content-Length: the file's (its bytes, a header, padding, the end), then the directory's, until its tars fit.
      expect(refusedLengths[2]).toBe(512 + 2_000_384 + 1024);
      expect(refusedLengths.length).toBeGreaterThan(3);
      const treeBack = join(dirname(local), "tree-back");
      expect((await gpu("cp", `${instance.id}:/data/capped-tree`, treeBack)).code).toBe(0);
      expect(checksums(treeBack)).toEqual(checksums(tree));
      const smallBack = join(dirname(local), "two-mb-back.bin");
      expect((await gpu("cp", `${instance.id}:/data/two-mb.bin`, smallBack)).code).toBe(0);
      expect(readFileSync(smallBack).equals(readFileSync(small))).toBe(true);
    } finally {
      await edge.close();
    }
  });

  it("works on a stopped instance: its data is kept and can be taken out", async () => {
    const stopped = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" });
    expect((await gpu("cp", tree, `${stopped.id}:/data`)).code).toBe(0);
    expect((await stack.api("POST", `/v1/instances/${stopped.id}/stop`)).status).toBe(204);
    await poll(() => stack.api<Instance>("GET", `/v1/instances/${stopped.id}`), (r) => r.body.status === "stopped");
    const back = join(testTempDir("gpu-cp-stopped-"), "out");
    expect(await gpu("cp", `${stopped.id}:/data/dataset`, back)).toMatchObject({ code: 0 });
    expect(checksums(back)).toEqual(checksums(tree));
    const upload = join(testTempDir("gpu-cp-up-"), "later.txt");
    writeFileSync(upload, "written while stopped\n");
    expect((await gpu("cp", upload, `${stopped.id}:/data`)).code).toBe(0);
    const again = join(testTempDir("gpu-cp-again-"), "later.txt");
    expect((await gpu("cp", `${stopped.id}:/data/later.txt`, again)).code).toBe(0);
    expect(readFileSync(again, "utf8")).toBe("written while stopped\n");

    // A part staged on the host goes with the instance.
    const staged = await fetch(`${stack.baseUrl}/v1/instances/${stopped.id}/files?path=/data/unfinished.bin&upload=unfinished-upload-01&offset=0`, {
      method: "PUT", headers: { authorization: `Bearer ${stack.key}` }, body: "half of it",
    });
    expect(staged.status).toBe(202);
    const stagingFolder = join(stack.stateDir, "agents", "dev-1", "uploads", stopped.id);
    expect(readdirSync(stagingFolder)).toEqual(["unfinished-upload-01"]);

    expect((await stack.api("DELETE", `/v1/instances/${stopped.id}`)).status).toBe(204);
    await poll(() => stack.api<Instance>("GET", `/v1/instances/${stopped.id}`), (r) => r.body.status === "destroyed");
    await poll(async () => existsSync(stagingFolder), (exists) => !exists);
    const gone = await gpu("cp", `${stopped.id}:/data/dataset`, join(testTempDir("gpu-cp-never-"), "never"));
    expect(gone).toMatchObject({ code: 1, stderr: expect.stringContaining("(conflict, HTTP 409)") });
  });

  it("refuses a path that does not exist (404), a relative path, and two local paths", async () => {
    const missing = await gpu("cp", `${instance.id}:/data/no-such-thing`, join(testTempDir("gpu-cp-never-"), "never"));
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_found, HTTP 404)") });
    expect((await gpu("cp", tree, `${instance.id}:data`)).code).toBe(2);
    expect((await gpu("cp", tree, tree)).code).toBe(2);
  });
});

/** What a GET through the tunnel's local port gets back before the connection closes; "not listening" before the tunnel is up. */
/** A file of `bytes` random bytes, made in a new temporary folder and uploaded to /data/<name> in parts of `partBytes` through `baseUrl`. */
async function uploadThrough(baseUrl: string, name: string, bytes: number, partBytes: number): Promise<{ local: string; content: Buffer }> {
  const local = join(testTempDir("gpu-cp-through-"), name);
  const content = randomBytes(bytes);
  writeFileSync(local, content);
  await uploadInParts({
    filesUrl: `${baseUrl}/v1/instances/${instance.id}/files`, apiKey: stack.key, remotePath: `/data/${name}`, local, size: bytes, progress: () => {}, partBytes,
  });
  return { local, content };
}

/**
 * A real HTTP proxy in front of the stack, as an edge is. It answers a client that asks first
 * (Expect: 100-continue) with 100 unless `refuse` answers instead, passes each request on (its body
 * shown to `onBody`), and each answer back unless `intercept` takes it.
 */
async function edgeProxy(hooks: {
  refuse?: (request: IncomingMessage, response: ServerResponse) => boolean;
  intercept?: (request: IncomingMessage, answer: IncomingMessage, response: ServerResponse) => boolean;
  onBody?: (chunk: Buffer) => void;
}): Promise<{ url: string; close(): Promise<void> }> {
  const edge = createServer((request, response) => {
    const upstream = httpRequest(`${stack.baseUrl}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
      if (hooks.intercept?.(request, answer, response)) return;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    if (hooks.onBody) request.on("data", hooks.onBody);
    request.pipe(upstream);
  });
  edge.on("checkContinue", (request, response) => {
    if (hooks.refuse?.(request, response)) return;
    response.writeContinue();
    edge.emit("request", request, response);
  });
  await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(edge.address() as AddressInfo).port}`, close: () => new Promise((resolve) => edge.close(() => resolve())) };
}

function throughTunnel(port: number, host = "127.0.0.1"): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    let received = "";
    let connected = false;
    socket.on("connect", () => {
      connected = true;
      socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    });
    socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
    socket.on("close", () => resolve(connected ? received : "not listening"));
    socket.on("error", () => undefined);
    // Neither a refusal nor an answer: never taken for one.
    socket.setTimeout(10_000, () => {
      resolve("no answer in 10 s");
      socket.destroy();
    });
  });
}
