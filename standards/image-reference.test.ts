// A reference's registry as the engine reads it, and the host the engine connects to for it.
import { describe, expect, it } from "vitest";
import { registryHostOf, registryOf } from "./image-reference.ts";

describe("the registry an image comes from", () => {
  it("is Docker Hub for short names, else the first component when it is a host (a dot, a port, or localhost)", () => {
    expect(["ubuntu", "vllm/vllm-openai:v1", "ghcr.io/a/b", "Registry.Example.com:443/x", "localhost/x", "team/sub/img"].map(registryOf))
      .toEqual(["docker.io", "docker.io", "ghcr.io", "registry.example.com:443", "localhost", "docker.io"]);
  });

  it("is reached at its host without the port; Docker Hub at registry-1.docker.io", () => {
    expect(["docker.io", "ghcr.io", "127.0.0.1.nip.io:5000", "localhost:5000", "[::1]:5000", "[fd00::1]"].map(registryHostOf))
      .toEqual(["registry-1.docker.io", "ghcr.io", "127.0.0.1.nip.io", "localhost", "::1", "fd00::1"]);
  });
});
