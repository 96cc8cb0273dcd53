// Which images the host pulls, on a real engine (podman, as root, like CI) against a registry
// stand-in (HTTPS, its CA trusted through /etc/containers/certs.d, as an operator trusts a private
// registry): a custom image is pulled on every create even when the host has it, a template's pinned
// image is not, and a pull that makes no progress fails the create with the reason. A registry whose
// name resolves to this host is refused before the engine is asked, and what the engine quotes of a
// registry's error answer reaches the instance's status as one line.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerReport, ContainerSpec } from "../../protocol/messages.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { CommandRunner } from "../command-runner.ts";
import { createLogger } from "../log.ts";
import { CUSTOM_TEMPLATE, DockerRuntime } from "./docker-runtime.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const STALL_MS = 1_500;
const HOST_SECRET = "AccessKeyId: AKIA-HOST-SECRET";

/** Runs a create as the agent does (command-runner.ts), returning the instance's reports: what its status_message is made of. */
async function runCreate(runtime: DockerRuntime, spec: ContainerSpec): Promise<ContainerReport[]> {
  const reports: ContainerReport[] = [];
  const runner = new CommandRunner(runtime, (report) => reports.push(report), () => {}, createLogger(() => {}));
  await runner.run({ type: "command", command_id: "c-create", op: "create", instance_id: spec.instance_id, spec });
  return reports;
}

describe.skipIf(!process.env.DOCKER_HOST)("image pulls on a real engine", () => {
  const docker = new Docker();
  const requests: string[] = [];
  let registry: Server;
  let certsDir: string;
  let keysDir: string;
  let image: string;
  let runtime: DockerRuntime;
  const created: string[] = [];

  beforeAll(async () => {
    keysDir = await mkdtemp(join(tmpdir(), "registry-stand-in-"));
    const openssl = (...args: string[]) => promisify(execFile)("openssl", args, { cwd: keysDir });
    await openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=registry stand-in CA");
    await openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
    await writeFile(join(keysDir, "san.cnf"), "subjectAltName=IP:127.0.0.1\n");
    await openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "1", "-extfile", "san.cnf");
    // The registry API's ping answers; tenant/leaky's manifest is a 404 whose page holds a secret past
    // its first line, as a service on the host's network might answer; every other manifest request
    // hangs, as a registry that stopped sending would.
    registry = createServer({ key: await readFile(join(keysDir, "server.key")), cert: await readFile(join(keysDir, "server.crt")) }, (req, res) => {
      requests.push(`${req.method} ${req.url}`);
      if (req.url === "/v2/") res.writeHead(200, { "docker-distribution-api-version": "registry/2.0" }).end("{}");
      if (req.url?.startsWith("/v2/tenant/leaky/")) res.writeHead(404, { "content-type": "text/html" }).end(`<html>\n<body>\n${HOST_SECRET}\n</body>\n</html>\n`);
    });
    registry.listen(0, "127.0.0.1");
    await once(registry, "listening");
    const host = `127.0.0.1:${(registry.address() as AddressInfo).port}`;
    certsDir = `/etc/containers/certs.d/${host}`;
    await mkdir(certsDir, { recursive: true });
    await promisify(execFile)("cp", [join(keysDir, "ca.crt"), join(certsDir, "ca.crt")]);
    // The host already has the image under the registry's name.
    image = `${host}/tenant/app:latest`;
    await docker.getImage(TEST_IMAGE).tag({ repo: `${host}/tenant/app`, tag: "latest" });
    // The stand-in, on loopback, plays a public registry here: the agent's address check is told so.
    // The refusal test below asks the system's resolver.
    runtime = new DockerRuntime({
      modelCacheDir: keysDir, stopTimeoutSeconds: 1, docker, pullStallMs: STALL_MS, scope: ENGINE_TESTS_SCOPE, registryLookup: async () => ["203.0.113.10"],
    });
  }, 60_000);
  afterAll(async () => {
    for (const id of created) await runtime?.destroy(id);
    await docker.getImage(image).remove().catch(() => undefined);
    registry?.closeAllConnections();
    registry?.close();
    if (certsDir) await rm(certsDir, { recursive: true, force: true });
    if (keysDir) await rm(keysDir, { recursive: true, force: true });
  });

  it("a template's pinned image the host has is not pulled again", async () => {
    const id = randomInstanceId();
    created.push(id);
    const progress: number[] = [];
    await runtime.create(testSpec(id, { image, template: "vllm", gpu_indices: [] }), (p) => progress.push(p));
    expect(progress).toEqual([100]);
    expect(requests).toEqual([]);
  });

  it("a custom image is pulled on every create, though the host has it; a pull that makes no progress fails the create, saying so", async () => {
    const id = randomInstanceId();
    created.push(id);
    await expect(runtime.create(testSpec(id, { image, template: CUSTOM_TEMPLATE, gpu_indices: [] }), () => {})).rejects.toThrow(
      `the pull of ${image} made no progress for 1.5 s`,
    );
    expect(requests).toEqual(["GET /v2/", "GET /v2/tenant/app/manifests/latest"]);
    expect((await runtime.list()).map((c) => c.instanceId)).not.toContain(id);
  });
  it("a custom image whose registry's name resolves to this host is refused before the engine is asked; the instance's status says why", async () => {
    const id = randomInstanceId();
    created.push(id);
    const port = (registry.address() as AddressInfo).port;
    const onThisHost = `localhost:${port}/tenant/app:latest`;
    const checked = new DockerRuntime({ modelCacheDir: keysDir, stopTimeoutSeconds: 1, docker, scope: ENGINE_TESTS_SCOPE });
    const before = requests.length;
    const reports = await runCreate(checked, testSpec(id, { image: onThisHost, template: CUSTOM_TEMPLATE, gpu_indices: [] }));
    expect(reports.at(-1)).toEqual({
      instance_id: id, state: "error",
      message: expect.stringMatching(new RegExp(`^create failed: the pull of ${onThisHost} was refused: its registry host localhost resolves to (127\\.0\\.0\\.1|::1), a loopback address; this host pulls only from public addresses$`)),
    });
    expect(requests.length).toBe(before);
    expect((await runtime.list()).map((c) => c.instanceId)).not.toContain(id);
  });

  it("what the engine quotes of a registry's error answer reaches the instance's status as its first line only", async () => {
    const id = randomInstanceId();
    created.push(id);
    const leaky = image.replace("/tenant/app:", "/tenant/leaky:");
    const reports = await runCreate(runtime, testSpec(id, { image: leaky, template: CUSTOM_TEMPLATE, gpu_indices: [] }));
    expect(requests).toContain("GET /v2/tenant/leaky/manifests/latest");
    const { state, message } = reports.at(-1)!;
    expect(state).toBe("error");
    expect(message).toMatch(/^create failed: .*404.*<html>…$/);
    expect(message).not.toContain("AKIA");
  });
});
