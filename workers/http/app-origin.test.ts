// App origins: the address the API gives for an (instance, port), and which hosts the Worker takes for an app's.
import { describe, expect, it } from "vitest";
import { appOrigin, appsScheme, matchAppHost } from "./app-origin.ts";

const ID = "i-aaabcdefghijklmn";

describe("app origins", () => {
  it.each([
    ["localhost:8787", "http"], ["LOCALHOST", "http"], ["apps.localhost:9000", "http"],
    ["example.net", "https"], ["localhost.example.net", "https"], ["staging.example.net", "https"],
  ])("APPS_DOMAIN %s is served over %s", (domain, scheme) => {
    expect(appsScheme(domain)).toBe(scheme);
  });

  it("an app's origin is {instance id}-{port}.{APPS_DOMAIN}", () => {
    expect(appOrigin("localhost:8787", { instanceId: ID, port: 8888 })).toBe(`http://${ID}-8888.localhost:8787`);
    expect(appOrigin("Example.NET", { instanceId: ID, port: 1 })).toBe(`https://${ID}-1.example.net`);
  });

  it("recognises an app's host in any case, and round-trips what appOrigin builds", () => {
    expect(matchAppHost(`${ID}-8888.localhost:8787`, "localhost:8787")).toEqual({ instanceId: ID, port: 8888 });
    expect(matchAppHost(`${ID.toUpperCase()}-65535.EXAMPLE.net`, "example.net")).toEqual({ instanceId: ID, port: 65535 });
    expect(matchAppHost(new URL(appOrigin("example.net", { instanceId: ID, port: 3000 })).host, "example.net")).toEqual({ instanceId: ID, port: 3000 });
  });

  it.each([
    `x-8888`, `${ID}-0`, `${ID}-65536`, `${ID}-08888`, `${ID}-`, ID, `www.${ID}-8888`, `${ID}-8888.x`, `i-aaab-8888`,
  ])("%s under APPS_DOMAIN names no app", (label) => {
    expect(matchAppHost(`${label}.example.net`, "example.net")).toBe("unknown");
  });

  it("is not an app host when not under APPS_DOMAIN: the API's host, APPS_DOMAIN itself, another port, a look-alike", () => {
    for (const host of ["api.example.com", "example.net", `${ID}-8888.example.net:8443`, `${ID}-8888.notexample.net`, `${ID}-8888example.net`]) {
      expect(matchAppHost(host, "example.net"), host).toBeNull();
    }
    expect(matchAppHost(`${ID}-8888.localhost:8788`, "localhost:8787")).toBeNull();
    expect(matchAppHost(`${ID}-8888.localhost`, "")).toBeNull();
  });
});
