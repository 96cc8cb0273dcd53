import { describe, expect, it } from "vitest";
import { planLaunch } from "./launch-rules.ts";
import { allowedRegistries, DEFAULT_IMAGE_REGISTRIES, localImagesAllowed } from "./image-registry.ts";

const gpu = { model: "rtx4090", display_name: "RTX 4090", vram_gb: 24, price_hour_micros: 690_000, tier: "consumer", arch: "ada" };
const custom = (image: string) => ({ gpu_model: "rtx4090", gpu_count: 1, template: "custom", image });

describe("the operator's IMAGE_REGISTRIES", () => {
  const registries = allowedRegistries(" docker.io, ghcr.io ");

  it("keeps custom images to the listed registries: 400 invalid naming image otherwise", () => {
    expect(planLaunch(custom("ubuntu"), gpu, registries).image).toBe("ubuntu");
    expect(planLaunch(custom("ghcr.io/acme/server:1"), gpu, registries).image).toBe("ghcr.io/acme/server:1");
    expect(() => planLaunch(custom("nvcr.io/nvidia/pytorch:24.01-py3"), gpu, registries)).toThrow(/^image: its registry nvcr.io is not one this service pulls from \(docker.io, ghcr.io\)$/);
  });

  it("is the well-known public registries when unset or empty: any other registry is 400 invalid naming image", () => {
    expect([allowedRegistries(undefined), allowedRegistries(""), allowedRegistries(" , ")]).toEqual([DEFAULT_IMAGE_REGISTRIES, DEFAULT_IMAGE_REGISTRIES, DEFAULT_IMAGE_REGISTRIES]);
    expect(DEFAULT_IMAGE_REGISTRIES).toEqual(["docker.io", "ghcr.io", "nvcr.io", "quay.io", "public.ecr.aws", "registry.k8s.io"]);
    for (const image of ["ubuntu", "ghcr.io/a/b", "nvcr.io/nvidia/pytorch:24.01-py3", "quay.io/a/b", "public.ecr.aws/a/b", "registry.k8s.io/pause:3.10"]) {
      expect(planLaunch(custom(image), gpu, allowedRegistries(undefined)).image).toBe(image);
    }
    expect(() => planLaunch(custom("127.0.0.1.nip.io:5000/x"), gpu, allowedRegistries(""))).toThrow(
      /^image: its registry 127.0.0.1.nip.io:5000 is not one this service pulls from \(docker.io, ghcr.io, nvcr.io, quay.io, public.ecr.aws, registry.k8s.io\)$/,
    );
  });

  it("lets any registry public by name through when \"*\", still none that names a private one", () => {
    expect(allowedRegistries(" * ")).toBeNull();
    expect(planLaunch(custom("registry.example.com/a/b"), gpu, allowedRegistries("*")).image).toBe("registry.example.com/a/b");
    expect(() => planLaunch(custom("10.0.0.1:5000/img"), gpu, allowedRegistries("*"))).toThrow(/^image: must name a public registry: /);
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
