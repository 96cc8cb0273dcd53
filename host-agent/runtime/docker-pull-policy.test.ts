// Which images the host pulls, on a real engine (podman, as root, like CI) against a registry
// stand-in (HTTPS, its CA trusted through /etc/containers/certs.d, as an operator trusts a private
// registry): a custom image is pulled on every create even when the host has it, a template's pinned
// image is not, and a pull that makes no progress fails the create with the reason.
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
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { CUSTOM_TEMPLATE, DockerRuntime } from "./docker-runtime.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const STALL_MS = 1_500;

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
    // The registry API's ping answers; every manifest request hangs, as a registry that stopped sending would.
    registry = createServer({ key: await readFile(join(keysDir, "server.key")), cert: await readFile(join(keysDir, "server.crt")) }, (req, res) => {
      requests.push(`${req.method} ${req.url}`);
      if (req.url === "/v2/") res.writeHead(200, { "docker-distribution-api-version": "registry/2.0" }).end("{}");
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
    runtime = new DockerRuntime({ modelCacheDir: keysDir, stopTimeoutSeconds: 1, docker, pullStallMs: STALL_MS, scope: ENGINE_TESTS_SCOPE });
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
});
