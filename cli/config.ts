// Where the CLI finds the service and the key: GPU_API_URL and GPU_API_KEY, else the file that
// `gpu login` writes ($XDG_CONFIG_HOME/gpu-rental/config.json, ~/.config by default), mode 0600.
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.ts";

export interface Config {
  apiUrl: string;
  apiKey: string;
}

interface ConfigFile {
  api_url?: string;
  api_key?: string;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "gpu-rental", "config.json");
}

/** The settings in force; a missing URL or key is a CliError saying how to provide it. */
export async function loadConfig(env: NodeJS.ProcessEnv): Promise<Config> {
  const saved = await readConfigFile(configPath(env));
  const apiUrl = env.GPU_API_URL || saved.api_url;
  const apiKey = env.GPU_API_KEY || saved.api_key;
  if (!apiUrl) throw new CliError("no API URL: set GPU_API_URL (e.g. http://127.0.0.1:8787) or run `gpu login`");
  if (!apiKey) throw new CliError("no API key: set GPU_API_KEY or run `gpu login`");
  return { apiUrl: normalizeApiUrl(apiUrl), apiKey };
}

export async function saveConfig(env: NodeJS.ProcessEnv, config: Config): Promise<string> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const file: ConfigFile = { api_url: config.apiUrl, api_key: config.apiKey };
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only to a new file; an older one may have been readable by others.
  await chmod(path, 0o600);
  return path;
}

/** The service's base address: http(s), no trailing slash, no /v1 (the API's paths carry it). */
export function normalizeApiUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`API URL "${text}" is not a URL; expected e.g. https://api.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`API URL "${text}" must be http or https`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "")}`;
}

async function readConfigFile(path: string): Promise<ConfigFile> {
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw new CliError(`cannot read ${path}: ${error.message}`);
  });
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as ConfigFile;
  } catch {
    // Reported below.
  }
  throw new CliError(`${path} is not a JSON object; run \`gpu login\` to write it again`);
}
