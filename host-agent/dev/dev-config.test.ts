// Command line and environment parsing of the dev agent: the agent's settings plus its stand-ins.
import { describe, expect, it } from "vitest";
import { parseCommandLine, USAGE } from "../config.ts";
import { DEV_USAGE, parseDevCommandLine } from "./dev-config.ts";

describe("dev agent command line", () => {
  it("reads the agent's settings as the production agent does, and the stand-ins' flags beside them, with their defaults", () => {
    const settings = ["--server", "http://127.0.0.1:8787/", "--token", "t"];
    const agent = parseCommandLine(settings, {});
    expect(parseDevCommandLine([...settings, "--runtime", "local", "--gpus", "l4:1"], {})).toEqual({
      ok: true,
      command: "run",
      config: {
        ...(agent.ok && agent.command === "run" ? agent.config : {}),
        runtime: "local",
        gpus: [{ index: 0, model: "l4", name: "NVIDIA L4", uuid: "GPU-local-0", vram_mb: 23034 }],
        syntheticVersions: { driver: "580.126.09", cuda: "13.0" },
        readyDelayMs: 3000,
        pullMs: 400,
        jupyter: false,
      },
    });
  });

  it("falls back to the environment, flags winning; docker and nvidia-smi's GPUs by default", () => {
    const env = {
      AGENT_SERVER: "https://gpu.example.com",
      AGENT_TOKEN: "env",
      AGENT_STATE_DIR: "/s",
      AGENT_CUDA_VERSION: "12.4",
      AGENT_DRIVER_VERSION: "550.54.15",
      DEV_READY_DELAY_MS: "200",
      DEV_JUPYTER: "1",
    };
    const parsed = parseDevCommandLine(["--token", "flag", "--cuda-version", "12.8"], env);
    expect(parsed.ok && parsed.command === "run" && parsed.config).toMatchObject({
      connectUrl: "wss://gpu.example.com/agent/v1/connect",
      token: "flag",
      runtime: "docker",
      gpus: null,
      syntheticVersions: { driver: "550.54.15", cuda: "12.8" },
      stateDir: "/s",
      readyDelayMs: 200,
      jupyter: true,
    });
  });

  it("the usage is the agent's, plus every stand-in's flag and variable", () => {
    expect(DEV_USAGE.startsWith(USAGE)).toBe(true);
    for (const name of ["--runtime local", "--gpus", "--cuda-version", "--driver-version", "AGENT_GPUS", "AGENT_CUDA_VERSION", "AGENT_DRIVER_VERSION", "DEV_READY_DELAY_MS", "DEV_PULL_MS", "DEV_JUPYTER"]) {
      expect(DEV_USAGE.slice(USAGE.length)).toContain(name);
    }
  });

  it.each([
    [["--server", "https://x"], "--token (or AGENT_TOKEN) is required"],
    [["--server", "https://x", "--token", "t", "--runtime", "podman"], '--runtime must be docker or local, got "podman"'],
    [["--server", "https://x", "--token", "t", "--runtime", "local"], "--gpus (or AGENT_GPUS) is required with --runtime local, e.g. --gpus rtx4090:8"],
    [["--server", "https://x", "--token", "t", "--gpus", "rtx4090"], expect.stringContaining("--gpus wants model:count")],
    [["--server", "https://x", "--token", "t", "--cuda-version", "12"], '--cuda-version must look like 12.4, got "12"'],
    [["--server", "https://x", "--token", "t", "--driver-version", "new"], '--driver-version must look like 550.54.15, got "new"'],
  ])("rejects %j", (argv, error) => {
    expect(parseDevCommandLine(argv, {})).toEqual({ ok: false, error });
  });

  it("rejects DEV_READY_DELAY_MS or DEV_PULL_MS that is not a non-negative integer", () => {
    expect(parseDevCommandLine(["--server", "https://x", "--token", "t"], { DEV_PULL_MS: "-1" })).toEqual({
      ok: false,
      error: "DEV_READY_DELAY_MS and DEV_PULL_MS must be non-negative integers",
    });
  });

  it("rejects a DEV_JUPYTER other than 0 or 1", () => {
    expect(parseDevCommandLine(["--server", "https://x", "--token", "t"], { DEV_JUPYTER: "yes" })).toEqual({ ok: false, error: 'DEV_JUPYTER must be 0 or 1, got "yes"' });
  });
});
