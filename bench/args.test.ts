import { describe, expect, it } from "vitest";
import { parseArgs } from "./args.ts";
import { parseListen } from "./stack/upstream-port.ts";

describe("bench options", () => {
  it("quick by default, with the default output file", () => {
    expect(parseArgs([], "out.json")).toEqual({
      full: false, noNginx: false, echo: false, profile: false, out: "out.json", only: [], soak: false, minutes: 30, help: false,
    });
  });

  it("--full, --profile, --no-nginx, --out and --only", () => {
    expect(parseArgs(["--full", "--profile", "--no-nginx", "--out", "x.json", "--only", "memory,latency"], "out.json")).toEqual({
      full: true, noNginx: true, echo: false, profile: true, out: "x.json", only: ["memory", "latency"], soak: false, minutes: 30, help: false,
    });
  });

  it("--soak runs 30 minutes unless --minutes says otherwise", () => {
    expect(parseArgs(["--soak"], "o")).toMatchObject({ soak: true, minutes: 30 });
    expect(parseArgs(["--soak", "--minutes", "3"], "o")).toMatchObject({ soak: true, minutes: 3 });
  });

  it("--minutes must be a positive number, and goes with --soak", () => {
    expect(parseArgs(["--soak", "--minutes", "0"], "o")).toEqual({ error: "--minutes must be a positive number, not 0" });
    expect(parseArgs(["--soak", "--minutes", "soon"], "o")).toEqual({ error: "--minutes must be a positive number, not soon" });
    expect(parseArgs(["--minutes", "3"], "o")).toEqual({ error: "--minutes goes with --soak" });
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
