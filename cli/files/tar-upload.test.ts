// `gpu cp`'s archive against a real HTTP server and the host's GNU tar: it goes with a Content-Length
// equal to the bytes sent (not chunked, which crossed the local stack at half the rate), and unpacks to
// the same tree; a socket is left out and named; the name given is followed when it is a link, the
// links inside are kept; a file that shrinks while it is sent fails the upload naming it; refusals
// come back as the CLI says them.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { buffer } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { CliError } from "../errors.ts";
import { CappedBody } from "./streamed-put.ts";
import { packTar, planTar } from "./tar-pack.ts";
import { putTar } from "./tar-upload.ts";

const dir = useTempDir("tar-upload-");
let server: Server;
let url: string;
/** What the server answers next: a status and a body. */
let answer: [number, string] = [204, ""];
const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];

beforeAll(async () => {
  server = createServer(async (request, response) => {
    received.push({ headers: request.headers, body: await buffer(request) });
    response.writeHead(answer[0], answer[1] ? { "content-type": "text/html" } : {}).end(answer[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/instances/i-x/files?path=/data`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Each entry under `root` (sorted): its type, mode, and content digest and time (whole seconds, as tar keeps it) or link target. */
function tree(root: string, relative = ""): string[] {
  return readdirSync(join(root, relative)).sort().flatMap((name) => {
    const path = join(relative, name);
    const stats = lstatSync(join(root, path));
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isDirectory()) return [`${path}/ ${mode}`, ...tree(root, path)];
    if (stats.isSymbolicLink()) return [`${path} -> ${readlinkSync(join(root, path))}`];
    if (stats.isFIFO()) return [`${path} fifo ${mode}`];
    return [`${path} ${mode} ${createHash("sha256").update(readFileSync(join(root, path))).digest("hex")} ${Math.floor(stats.mtimeMs / 1000)}`];
  });
}

describe("putTar", () => {
  it("sends a Content-Length equal to the archive, which unpacks to the same tree; a socket is left out and named", async () => {
    const source = join(dir.path, "source");
    const corpus = join(source, "corpus");
    const longName = `${"données-longues-".repeat(8)}.bin`;
    mkdirSync(join(corpus, "empty"), { recursive: true });
    writeFileSync(join(corpus, "weights.bin"), randomBytes(3 * 1024 * 1024 + 7));
    writeFileSync(join(corpus, longName), randomBytes(513));
    writeFileSync(join(corpus, "empty.txt"), "");
    writeFileSync(join(corpus, "run.sh"), "#!/bin/sh\n", { mode: 0o750 });
    utimesSync(join(corpus, "run.sh"), new Date("2026-01-02T03:04:05Z"), new Date("2026-01-02T03:04:05Z"));
    symlinkSync("weights.bin", join(corpus, "latest"));
    symlinkSync(`../${"cible-".repeat(30)}`, join(corpus, "dangling"));
    execFileSync("mkfifo", [join(corpus, "pipe")]);
    const socket = createNetServer().listen(join(corpus, "agent.sock"));
    await new Promise((resolve) => socket.once("listening", resolve));
    const names = ["corpus", ...readdirSync(corpus).map((name) => `corpus/${name}`)];
    const skipped: string[] = [];
    received.length = 0;
    answer = [204, ""];
    try {
      await putTar({ url, apiKey: "gpu_test", parent: source, names, given: "corpus", counter: new PassThrough(), skipped: (name, what) => skipped.push(`${name}: ${what}`) });
    } finally {
      socket.close();
    }
    const [{ headers, body }] = received as [(typeof received)[number]];
    expect(headers["content-length"]).toBe(String(body.byteLength));
    expect(headers["transfer-encoding"]).toBeUndefined();
    expect(headers).toMatchObject({ authorization: "Bearer gpu_test", "content-type": "application/x-tar" });
    expect(skipped).toEqual(["corpus/agent.sock: a socket"]);
    const into = join(dir.path, "unpacked");
    mkdirSync(into);
    execFileSync("tar", ["-x", "-C", into], { input: body });
    expect(tree(into)).toEqual(tree(source).filter((line) => !line.startsWith("corpus/agent.sock")));
  });

  it("fails naming a file that shrank after it was planned, and says what refused the archive", async () => {
    const source = join(dir.path, "shrinks");
    mkdirSync(source);
    writeFileSync(join(source, "log.txt"), randomBytes(200_000));
    const plan = await planTar({ parent: source, names: ["log.txt"], given: "log.txt", skipped: () => undefined });
    truncateSync(join(source, "log.txt"), 1000);
    await expect(buffer(packTar(plan))).rejects.toThrow(new CliError(`${join(source, "log.txt")} changed while it was sent: 1000 of its 200000 bytes were left`));
    const upload = { url, apiKey: "k", parent: source, names: ["log.txt"], given: "log.txt", counter: new PassThrough(), skipped: () => undefined };
    answer = [413, "<html>413 Request Entity Too Large</html>"];
    await expect(putTar(upload)).rejects.toBeInstanceOf(CappedBody);
    answer = [404, JSON.stringify({ error: "not_found", message: "no directory /data in the instance to extract into" })];
    await expect(putTar({ ...upload, counter: new PassThrough() })).rejects.toThrow("no directory /data in the instance to extract into (not_found, HTTP 404)");
    await expect(putTar({ ...upload, names: ["gone.txt"] })).rejects.toThrow(`no file or directory ${join(source, "gone.txt")}`);
  });

  it("packs what the name given points at when it is a link, keeping the links inside as links", async () => {
    const source = join(dir.path, "linked");
    mkdirSync(join(source, "real-dir"), { recursive: true });
    writeFileSync(join(source, "real-dir", "a.txt"), "a");
    symlinkSync("a.txt", join(source, "real-dir", "inner-link"));
    writeFileSync(join(source, "weights.bin"), "w".repeat(1000));
    symlinkSync("weights.bin", join(source, "model"));
    symlinkSync("real-dir", join(source, "folder"));
    const file = await planTar({ parent: source, names: ["model"], given: "model", skipped: () => undefined });
    expect(file.entries.map(({ name, type, size }) => ({ name, type, size }))).toEqual([{ name: "model", type: "file", size: 1000 }]);
    const folder = await planTar({ parent: source, names: ["folder", "folder/a.txt", "folder/inner-link"], given: "folder", skipped: () => undefined });
    expect(folder.entries.map(({ name, type, linkName }) => ({ name, type, linkName }))).toEqual([
      { name: "folder", type: "directory", linkName: undefined },
      { name: "folder/a.txt", type: "file", linkName: undefined },
      { name: "folder/inner-link", type: "symlink", linkName: "a.txt" },
    ]);
    const into = join(dir.path, "linked-out");
    mkdirSync(into);
    execFileSync("tar", ["-x", "-C", into], { input: await buffer(packTar(file)) });
    expect(readFileSync(join(into, "model"), "utf8")).toBe("w".repeat(1000));
  });

  it("gives the name given and what is under it the new name, as a copy to a new name at the destination", async () => {
    const source = join(dir.path, "renamed");
    mkdirSync(join(source, "dataset", "nested"), { recursive: true });
    mkdirSync(join(source, "dataset-other"));
    writeFileSync(join(source, "dataset", "nested", "a.txt"), "a");
    const names = ["dataset", "dataset/nested", "dataset/nested/a.txt", "dataset-other"];
    const plan = await planTar({ parent: source, names, given: "dataset", as: "train", skipped: () => undefined });
    expect(plan.entries.map((entry) => [entry.name, entry.local])).toEqual([
      ["train", join(source, "dataset")],
      ["train/nested", join(source, "dataset", "nested")],
      ["train/nested/a.txt", join(source, "dataset", "nested", "a.txt")],
      ["dataset-other", join(source, "dataset-other")],
    ]);
    const into = join(dir.path, "renamed-out");
    mkdirSync(into);
    execFileSync("tar", ["-x", "-C", into], { input: await buffer(packTar(plan)) });
    expect(readFileSync(join(into, "train", "nested", "a.txt"), "utf8")).toBe("a");
  });

  it("leaves FIFOs out, naming each, for a destination that stores none (a volume)", async () => {
    const source = join(dir.path, "with-fifo");
    mkdirSync(join(source, "logs"), { recursive: true });
    execFileSync("mkfifo", [join(source, "logs", "pipe")]);
    const skipped: string[] = [];
    const plan = await planTar({ parent: source, names: ["logs", "logs/pipe"], given: "logs", fifos: false, skipped: (name, what) => skipped.push(`${name}: ${what}`) });
    expect(plan.entries.map((entry) => entry.name)).toEqual(["logs"]);
    expect(skipped).toEqual(["logs/pipe: a FIFO"]);
  });
});
