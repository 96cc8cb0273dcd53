import { describe, expect, it } from "vitest";
import { planLaunch } from "./launch-rules.ts";
import { allowedRegistries, localImagesAllowed, registryOf } from "./image-registry.ts";

const gpu = { model: "rtx4090", display_name: "RTX 4090", vram_gb: 24, price_hour_micros: 690_000, tier: "consumer", arch: "ada" };
const custom = (image: string) => ({ gpu_model: "rtx4090", gpu_count: 1, template: "custom", image });

describe("the registry an image comes from", () => {
  it("is Docker Hub for short names, else the first component when it is a host (a dot, a port, or localhost)", () => {
    expect(["ubuntu", "vllm/vllm-openai:v1", "ghcr.io/a/b", "Registry.Example.com:443/x", "localhost/x", "team/sub/img"].map(registryOf))
      .toEqual(["docker.io", "docker.io", "ghcr.io", "registry.example.com:443", "localhost", "docker.io"]);
  });
});

describe("the operator's IMAGE_REGISTRIES", () => {
  const registries = allowedRegistries(" docker.io, ghcr.io ");

  it("keeps custom images to the listed registries: 400 invalid naming image otherwise", () => {
    expect(planLaunch(custom("ubuntu"), gpu, registries).image).toBe("ubuntu");
    expect(planLaunch(custom("ghcr.io/acme/server:1"), gpu, registries).image).toBe("ghcr.io/acme/server:1");
    expect(() => planLaunch(custom("nvcr.io/nvidia/pytorch:24.01-py3"), gpu, registries)).toThrow(/^image: its registry nvcr.io is not one this service pulls from \(docker.io, ghcr.io\)$/);
  });

  it("lets any public registry through when unset or empty", () => {
    expect([allowedRegistries(undefined), allowedRegistries(""), allowedRegistries(" , ")]).toEqual([null, null, null]);
    expect(planLaunch(custom("nvcr.io/nvidia/pytorch:24.01-py3"), gpu, null).image).toBe("nvcr.io/nvidia/pytorch:24.01-py3");
  });
});

describe("the dev Worker's DEV_LOCAL_IMAGES", () => {
  it("admits localhost/NAME images only when it is \"1\", and still no other private registry", () => {
    expect([localImagesAllowed(undefined), localImagesAllowed("0"), localImagesAllowed("true"), localImagesAllowed("1")]).toEqual([false, false, false, true]);
    expect(() => planLaunch(custom("localhost/gpu-rental-dev-server:latest"), gpu, null)).toThrow(/^image: must name a public registry: its registry localhost is this host itself$/);
    expect(planLaunch(custom("localhost/gpu-rental-dev-server:latest"), gpu, null, true).image).toBe("localhost/gpu-rental-dev-server:latest");
    for (const image of ["localhost:5000/app", "app.localhost/x", "10.0.0.1:5000/img", "registry:5000/img"]) {
      expect(() => planLaunch(custom(image), gpu, null, true), image).toThrow(/^image: must name a public registry: /);
    }
  });

  it("leaves the operator's IMAGE_REGISTRIES in force: localhost must be listed there too", () => {
    expect(() => planLaunch(custom("localhost/app"), gpu, allowedRegistries("docker.io"), true)).toThrow(/^image: its registry localhost is not one this service pulls from \(docker.io\)$/);
    expect(planLaunch(custom("localhost/app"), gpu, allowedRegistries("localhost"), true).image).toBe("localhost/app");
  });
});
