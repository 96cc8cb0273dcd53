import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configPath, loadConfig, normalizeApiUrl, saveConfig } from "./config.ts";
import { testTempDir } from "../test/support/agent/temp-dir.ts";

const home = () => testTempDir("gpu-config-");

describe("CLI configuration", () => {
  it("lives under $XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configPath({ XDG_CONFIG_HOME: "/x" })).toBe("/x/gpu-rental/config.json");
    expect(configPath({ HOME: "/home/u" })).toBe("/home/u/.config/gpu-rental/config.json");
  });

  it("is written with mode 0600, also over an older file that others could read", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    mkdirSync(join(env.XDG_CONFIG_HOME, "gpu-rental"));
    writeFileSync(configPath(env), "{}");
    chmodSync(configPath(env), 0o644);
    await saveConfig(env, { apiUrl: "https://api.example.com", apiKey: "gpk_x" });
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(await loadConfig(env)).toEqual({ apiUrl: "https://api.example.com", apiKey: "gpk_x" });
  });

  it("takes GPU_API_URL and GPU_API_KEY over the file", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    await saveConfig(env, { apiUrl: "https://saved.example.com", apiKey: "gpk_saved" });
    expect(await loadConfig({ ...env, GPU_API_URL: "http://127.0.0.1:8787/v1/", GPU_API_KEY: "gpk_env" }))
      .toEqual({ apiUrl: "http://127.0.0.1:8787", apiKey: "gpk_env" });
  });

  it("refuses a file that is not a JSON object, saying how to fix it", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    mkdirSync(join(env.XDG_CONFIG_HOME, "gpu-rental"));
    writeFileSync(configPath(env), "[1]");
    await expect(loadConfig(env)).rejects.toThrow(`${configPath(env)} is not a JSON object; run \`gpu login\` to write it again`);
  });

  it.each([
    ["https://api.example.com", "https://api.example.com"],
    ["https://api.example.com/v1", "https://api.example.com"],
    ["http://127.0.0.1:8787/v1/", "http://127.0.0.1:8787"],
    ["https://example.com/gpu/", "https://example.com/gpu"],
  ])("the API URL %s is used as %s", (given, used) => {
    expect(normalizeApiUrl(given)).toBe(used);
  });

  it.each([["api.example.com", "is not a URL"], ["ftp://example.com", "must be http or https"]])("the API URL %s is refused: %s", (given, reason) => {
    expect(() => normalizeApiUrl(given)).toThrow(reason);
  });
});
