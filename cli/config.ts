// Where the CLI finds the service and the key: GPU_API_URL and GPU_API_KEY, else the file that
// `gpu login` writes ($XDG_CONFIG_HOME/gpu-rental/config.json, ~/.config by default), mode 0600.
// The file keeps every key `gpu login` was given, one per account and service (a person in several
// accounts has a key of each), and which of them is in use (`gpu accounts switch`).
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.ts";

export interface Config {
  apiUrl: string;
  apiKey: string;
}

/** A key `gpu login` saved, with the account it acts on. */
export interface SavedKey extends Config {
  /** Null for the one key of a file written before keys were kept per account. */
  accountId: string | null;
}

interface ConfigFile {
  /** The key in use, and its service. */
  api_url?: string;
  api_key?: string;
  accounts?: { account_id: string | null; api_url: string; api_key: string }[];
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

/** The keys `gpu login` saved, the one in use among them (a file of before: its one key, of an account not noted). */
export async function savedKeys(env: NodeJS.ProcessEnv): Promise<SavedKey[]> {
  const saved = await readConfigFile(configPath(env));
  const keys: SavedKey[] = (saved.accounts ?? []).map((a) => ({ accountId: a.account_id, apiUrl: a.api_url, apiKey: a.api_key }));
  if (saved.api_url && saved.api_key && !keys.some((k) => sameKey(k, { apiUrl: saved.api_url!, apiKey: saved.api_key! }))) {
    keys.unshift({ accountId: null, apiUrl: saved.api_url, apiKey: saved.api_key });
  }
  return keys;
}

export const sameKey = (a: Config, b: Config) => a.apiUrl === b.apiUrl && a.apiKey === b.apiKey;

/**
 * Saves a key and puts it in use: it takes the place of a key saved for the same account of the
 * same service, and the other accounts' keys stay, for `gpu accounts switch`.
 */
export async function saveConfig(env: NodeJS.ProcessEnv, key: SavedKey): Promise<string> {
  const others = (await savedKeys(env)).filter((k) => !sameKey(k, key) && !(k.accountId === key.accountId && k.apiUrl === key.apiUrl));
  return writeConfigFile(env, key, [...others, key]);
}

/** Puts a saved key in use. */
export async function useSavedKey(env: NodeJS.ProcessEnv, key: SavedKey): Promise<string> {
  return writeConfigFile(env, key, await savedKeys(env));
}

async function writeConfigFile(env: NodeJS.ProcessEnv, current: Config, keys: SavedKey[]): Promise<string> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const file: ConfigFile = {
    api_url: current.apiUrl,
    api_key: current.apiKey,
    accounts: keys.map((k) => ({ account_id: k.accountId, api_url: k.apiUrl, api_key: k.apiKey })),
  };
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
    if (isObject(parsed)) {
      if (parsed.accounts === undefined || (Array.isArray(parsed.accounts) && parsed.accounts.every(isSavedKey))) return parsed as ConfigFile;
      throw new CliError(`${path}: "accounts" is not a list of saved keys; run \`gpu login\` to write it again`);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Reported below.
  }
  throw new CliError(`${path} is not a JSON object; run \`gpu login\` to write it again`);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isSavedKey = (value: unknown) =>
  isObject(value) && typeof value.api_url === "string" && typeof value.api_key === "string" && (value.account_id === null || typeof value.account_id === "string");
