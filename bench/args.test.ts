import { describe, expect, it } from "vitest";
import { parseArgs } from "./args.ts";
import { parseListen } from "./stack/upstream-port.ts";

describe("bench options", () => {
  it("quick by default, with the default output file", () => {
    expect(parseArgs([], "out.json")).toEqual({ full: false, noNginx: false, echo: false, profile: false, out: "out.json", only: [], help: false });
  });

  it("--full, --profile, --no-nginx, --out and --only", () => {
    expect(parseArgs(["--full", "--profile", "--no-nginx", "--out", "x.json", "--only", "memory,latency"], "out.json")).toEqual({
      full: true, noNginx: true, echo: false, profile: true, out: "x.json", only: ["memory", "latency"], help: false,
    });
  });

  it("an unknown option or suite is an error", () => {
    expect(parseArgs(["--fast"], "o")).toEqual({ error: "unknown option --fast" });
    expect(parseArgs(["--only", "memory,disk"], "o")).toEqual({ error: expect.stringContaining("unknown suite disk") });
  });
});

describe("DEV_LISTEN of a dev container", () => {
  it("maps container ports to host ports", () => {
    expect([...parseListen("8000:41234,8888:41235")]).toEqual([[8000, 41234], [8888, 41235]]);
  });

  it("ignores malformed pairs", () => {
    expect([...parseListen("8000:x,,9000:9001")]).toEqual([[9000, 9001]]);
  });
});
