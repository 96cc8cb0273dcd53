// Command line and environment parsing of the production agent's settings.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommandLine, USAGE } from "./config.ts";

describe("agent command line", () => {
  it("reads flags, derives the ws URL and the default dirs and pool", () => {
    const parsed = parseCommandLine(["--server", "http://127.0.0.1:8787/", "--token", "t", "--runtime", "docker"], {});
    expect(parsed).toEqual({
      ok: true,
      command: "run",
      config: {
        connectUrl: "ws://127.0.0.1:8787/agent/v1/connect",
        token: "t",
        stateDir: resolve(".agent-state"),
        cacheDir: resolve(".agent-state/hf-cache"),
        networkPool: "10.213.0.0/16",
        metricsIntervalMs: 10_000,
        probeImage: "docker.io/library/busybox:1.37",
        acceptUnenforcedDisk: false,
        uploadStagingBytes: 100 * 2 ** 30,
        imageKeepMs: 24 * 3_600_000,
        volumeCacheBytes: 50 * 2 ** 30,
        volumeSaveMs: 15 * 60_000,
      },
    });
  });

  it("falls back to the environment, flags winning", () => {
    const env = {
      AGENT_SERVER: "https://gpu.example.com",
      AGENT_TOKEN: "env",
      AGENT_RUNTIME: "docker",
      AGENT_STATE_DIR: "/s",
      AGENT_NETWORK_POOL: "10.50.0.0/20",
      AGENT_METRICS_INTERVAL_MS: "1000",
      AGENT_PROBE_IMAGE: "mirror.example.com/busybox:1.37",
      AGENT_UNENFORCED_DISK: "accept",
      AGENT_UPLOAD_STAGING_GB: "0.5",
      AGENT_IMAGE_KEEP_HOURS: "2",
      AGENT_VOLUME_CACHE_GB: "0.25",
      AGENT_VOLUME_SAVE_MINUTES: "5",
    };
    const parsed = parseCommandLine(["--token", "flag", "--image-keep-hours", "0.25", "--volume-save-minutes", "0.5"], env);
    expect(parsed.ok && parsed.command === "run" && parsed.config).toEqual({
      connectUrl: "wss://gpu.example.com/agent/v1/connect",
      token: "flag",
      stateDir: "/s",
      cacheDir: "/s/hf-cache",
      networkPool: "10.50.0.0/20",
      metricsIntervalMs: 1000,
      probeImage: "mirror.example.com/busybox:1.37",
      acceptUnenforcedDisk: true,
      uploadStagingBytes: 2 ** 29,
      imageKeepMs: 15 * 60_000,
      volumeCacheBytes: 2 ** 28,
      volumeSaveMs: 30_000,
    });
  });

  it("doctor takes the same settings", () => {
    const parsed = parseCommandLine(["doctor", "--server", "https://x", "--token", "t"], {});
    expect(parsed).toMatchObject({ ok: true, command: "doctor", config: { connectUrl: "wss://x/agent/v1/connect" } });
  });

  it.each([[["--help"]], [["-h"]], [["doctor", "--help"]]])("%j asks for the usage, needing no settings", (argv) => {
    expect(parseCommandLine(argv, {})).toEqual({ ok: true, command: "help" });
  });

  it("--version needs no settings either", () => {
    expect(parseCommandLine(["--version"], {})).toEqual({ ok: true, command: "version" });
  });

  it("the usage names every flag and every environment variable the agent reads, and no stand-in of the dev agent", () => {
    for (const flag of ["--server", "--token", "--runtime", "--state-dir", "--cache-dir", "--network-pool", "--probe-image", "--unenforced-disk", "--upload-staging-gb", "--image-keep-hours", "--volume-cache-gb", "--volume-save-minutes", "--help", "--version", "doctor"]) {
      expect(USAGE).toContain(flag);
    }
    for (const name of [
      "AGENT_SERVER", "AGENT_TOKEN", "AGENT_RUNTIME", "AGENT_STATE_DIR", "AGENT_CACHE_DIR", "AGENT_NETWORK_POOL", "AGENT_PROBE_IMAGE", "AGENT_UNENFORCED_DISK",
      "AGENT_UPLOAD_STAGING_GB", "AGENT_IMAGE_KEEP_HOURS", "AGENT_VOLUME_CACHE_GB", "AGENT_VOLUME_SAVE_MINUTES", "DOCKER_HOST", "AGENT_METRICS_INTERVAL_MS",
    ]) {
      expect(USAGE).toContain(name);
    }
    for (const devOnly of ["local", "--gpus", "--cuda-version", "--driver-version", "DEV_"]) expect(USAGE).not.toContain(devOnly);
  });

  it("docs/deploy.md's table of the agent's settings and --help name the same flags and variables", () => {
    const deploy = readFileSync(new URL("../docs/deploy.md", import.meta.url), "utf8");
    const section = deploy.slice(deploy.indexOf("### The agent's settings"), deploy.indexOf("### The agent as a container"));
    const names = (text: string) => new Set(text.match(/--[a-z][a-z-]+|\b(?:AGENT|DOCKER|DEV)_[A-Z_]+\b/g));
    const inHelp = names(USAGE);
    expect([...inHelp].filter((name) => !section.includes(name))).toEqual([]);
    expect([...names(section)].filter((name) => !inHelp.has(name))).toEqual([]);
  });

  it.each([
    [[], "--server (or AGENT_SERVER) is required"],
    [["--server", "http://x"], "--token (or AGENT_TOKEN) is required"],
    [["--server", "ftp://x", "--token", "t"], '--server must be an http(s) or ws(s) URL, got "ftp://x"'],
    [["--server", "https://x", "--token", "t", "--runtime", "local"], '--runtime must be docker, got "local" (the local runtime is the dev agent\'s: npm run dev)'],
    [["--server", "https://x", "--token", "t", "--network-pool", "10.213.0.1/16"], expect.stringContaining("--network-pool: \"10.213.0.1/16\" has host bits set; did you mean 10.213.0.0/16?")],
    [["--server", "https://x", "--token", "t", "--network-pool", "10.213.0.0/26"], expect.stringContaining("must be between a /8 and a /24")],
    ...["http://gpu.example.com", "ws://203.0.113.7:8787", "http://10.0.0.5", "http://localhost.example.com"].map((server) => [
      ["--server", server, "--token", "t"],
      `--server ${server} would send the agent token unencrypted: use https:// (http:// and ws:// are for a server on this machine's loopback only)`,
    ] as [string[], string]),
    [["--server", "https://x", "--token", "t", "--unenforced-disk", "yes"], '--unenforced-disk must be accept or refuse, got "yes"'],
    ...["0", "1e3", "ten", ".5"].flatMap((value) => [
      [["--server", "https://x", "--token", "t", "--upload-staging-gb", value], "--upload-staging-gb (or AGENT_UPLOAD_STAGING_GB) must be a number of GB above 0, e.g. 100 or 0.5"],
      [["--server", "https://x", "--token", "t", "--image-keep-hours", value], "--image-keep-hours (or AGENT_IMAGE_KEEP_HOURS) must be a number of hours above 0, e.g. 24 or 0.5"],
      [["--server", "https://x", "--token", "t", "--volume-cache-gb", value], "--volume-cache-gb (or AGENT_VOLUME_CACHE_GB) must be a number of GB above 0, e.g. 50 or 0.5"],
      [["--server", "https://x", "--token", "t", "--volume-save-minutes", value], "--volume-save-minutes (or AGENT_VOLUME_SAVE_MINUTES) must be a number of minutes above 0, e.g. 15 or 0.5"],
    ] as [string[], string][]),
    [["start"], 'unknown command "start"; the only command is doctor'],
    [["doctor", "now"], 'unknown command "doctor now"; the only command is doctor'],
  ])("rejects %j", (argv, error) => {
    expect(parseCommandLine(argv, {})).toEqual({ ok: false, error });
  });

  it.each(["http://127.0.0.1:8787", "http://127.8.9.10", "http://localhost:8787", "ws://[::1]:8787", "http://dev.localhost:8787"])("takes the loopback server %s over plain http, for development", (server) => {
    expect(parseCommandLine(["--server", server, "--token", "t"], {})).toMatchObject({ ok: true });
  });

  it.each(["999", "10s", "-1"])("rejects a metrics interval of %s", (value) => {
    expect(parseCommandLine(["--server", "https://x", "--token", "t"], { AGENT_METRICS_INTERVAL_MS: value })).toEqual({
      ok: false, error: "AGENT_METRICS_INTERVAL_MS must be an integer of at least 1000",
    });
  });

  it.each([["--nope"], ["--gpus"], ["--cuda-version"], ["--driver-version"]])("rejects the unknown flag %s (the dev agent's stand-ins included)", (flag) => {
    expect(parseCommandLine([flag, "x"], {})).toEqual({ ok: false, error: expect.stringContaining(flag) });
  });
});
