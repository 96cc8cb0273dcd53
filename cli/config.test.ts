import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configPath, loadConfig, normalizeApiUrl, savedKeys, saveConfig, useSavedKey } from "./config.ts";
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
    await saveConfig(env, { apiUrl: "https://api.example.com", apiKey: "gpk_x", accountId: "acc-x" });
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(await loadConfig(env)).toEqual({ apiUrl: "https://api.example.com", apiKey: "gpk_x" });
  });

  it("takes GPU_API_URL and GPU_API_KEY over the file", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    await saveConfig(env, { apiUrl: "https://saved.example.com", apiKey: "gpk_saved", accountId: "acc-saved" });
    expect(await loadConfig({ ...env, GPU_API_URL: "http://127.0.0.1:8787/v1/", GPU_API_KEY: "gpk_env" }))
      .toEqual({ apiUrl: "http://127.0.0.1:8787", apiKey: "gpk_env" });
  });

  it("keeps one key per account and service, the last saved in use; switching puts another in use and keeps them all", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    const a = { apiUrl: "https://api.example.com", apiKey: "gpk_a1", accountId: "acc-a" };
    const b = { apiUrl: "https://api.example.com", apiKey: "gpk_b", accountId: "acc-b" };
    const elsewhere = { apiUrl: "https://other.example.com", apiKey: "gpk_a2", accountId: "acc-a" };
    await saveConfig(env, a);
    await saveConfig(env, b);
    await saveConfig(env, elsewhere);
    expect(await savedKeys(env)).toEqual([a, b, elsewhere]);
    const newer = { ...a, apiKey: "gpk_a3" };
    await saveConfig(env, newer);
    expect(await savedKeys(env)).toEqual([b, elsewhere, newer]);
    expect(await loadConfig(env)).toEqual({ apiUrl: newer.apiUrl, apiKey: newer.apiKey });

    await useSavedKey(env, b);
    expect(await loadConfig(env)).toEqual({ apiUrl: b.apiUrl, apiKey: b.apiKey });
    expect(await savedKeys(env)).toEqual([b, elsewhere, newer]);
  });

  it("keeps the one key of a file written before keys were kept per account, beside a key saved after", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    mkdirSync(join(env.XDG_CONFIG_HOME, "gpu-rental"));
    writeFileSync(configPath(env), JSON.stringify({ api_url: "https://api.example.com", api_key: "gpk_old" }));
    const old = { apiUrl: "https://api.example.com", apiKey: "gpk_old", accountId: null };
    expect(await savedKeys(env)).toEqual([old]);
    const b = { apiUrl: "https://api.example.com", apiKey: "gpk_b", accountId: "acc-b" };
    await saveConfig(env, b);
    expect(await savedKeys(env)).toEqual([old, b]);
    expect(await loadConfig(env)).toEqual({ apiUrl: b.apiUrl, apiKey: b.apiKey });
  });

  it("refuses saved keys that are not a list of them, saying how to fix it", async () => {
    const env = { XDG_CONFIG_HOME: home() };
    mkdirSync(join(env.XDG_CONFIG_HOME, "gpu-rental"));
    writeFileSync(configPath(env), JSON.stringify({ api_url: "https://api.example.com", api_key: "gpk_x", accounts: [{ api_url: "https://api.example.com" }] }));
    await expect(savedKeys(env)).rejects.toThrow(`${configPath(env)}: "accounts" is not a list of saved keys; run \`gpu login\` to write it again`);
    await expect(loadConfig(env)).rejects.toThrow("is not a list of saved keys");
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
