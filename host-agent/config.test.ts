// Command line and environment parsing of the agent's settings.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "./config.ts";

describe("agent config", () => {
  it("reads flags, derives the ws URL and the default dirs", () => {
    const parsed = parseConfig(["--server", "http://127.0.0.1:8787/", "--token", "t", "--runtime", "local", "--gpus", "l4:1"], {});
    expect(parsed).toEqual({
      ok: true,
      config: {
        connectUrl: "ws://127.0.0.1:8787/agent/v1/connect",
        token: "t",
        runtime: "local",
        gpus: [{ index: 0, model: "l4", name: "NVIDIA L4", uuid: "GPU-local-0", vram_mb: 23034 }],
        stateDir: resolve(".agent-state"),
        cacheDir: resolve(".agent-state/hf-cache"),
        readyDelayMs: 3000,
        pullMs: 400,
      },
    });
  });

  it("falls back to the environment, flags winning", () => {
    const env = { AGENT_SERVER: "https://gpu.example.com", AGENT_TOKEN: "env", AGENT_STATE_DIR: "/s", DEV_READY_DELAY_MS: "200" };
    const parsed = parseConfig(["--token", "flag"], env);
    expect(parsed.ok && parsed.config).toMatchObject({
      connectUrl: "wss://gpu.example.com/agent/v1/connect",
      token: "flag",
      runtime: "docker",
      gpus: null,
      stateDir: "/s",
      cacheDir: "/s/hf-cache",
      readyDelayMs: 200,
    });
  });

  it.each([
    [[], "--server (or AGENT_SERVER) is required"],
    [["--server", "http://x"], "--token (or AGENT_TOKEN) is required"],
    [["--server", "ftp://x", "--token", "t"], '--server must be an http(s) or ws(s) URL, got "ftp://x"'],
    [["--server", "http://x", "--token", "t", "--runtime", "podman"], '--runtime must be docker or local, got "podman"'],
    [["--server", "http://x", "--token", "t", "--runtime", "local"], "--gpus (or AGENT_GPUS) is required with --runtime local, e.g. --gpus rtx4090:8"],
    [["--server", "http://x", "--token", "t", "--gpus", "rtx4090"], expect.stringContaining('--gpus wants model:count')],
  ])("rejects %j", (argv, error) => {
    expect(parseConfig(argv, {})).toEqual({ ok: false, error });
  });

  it("rejects unknown flags", () => {
    expect(parseConfig(["--nope"], {})).toEqual({ ok: false, error: expect.stringContaining("--nope") });
  });
});
