// What every command needs, made on demand (gh's cmdutil.Factory): the terminal, the environment,
// the configuration and an API client. A command that never calls the API never needs a key.
import { createGpuClient, type GpuClient } from "../client/index.ts";
import { loadConfig, type Config } from "./config.ts";
import type { IoStreams } from "./iostreams.ts";

export interface Factory {
  io: IoStreams;
  env: NodeJS.ProcessEnv;
  config(): Promise<Config>;
  client(): Promise<GpuClient>;
  /** The API URL once known, for error messages. */
  apiUrl(): string | null;
}

export function createFactory(io: IoStreams, env: NodeJS.ProcessEnv): Factory {
  let config: Promise<Config> | null = null;
  let apiUrl: string | null = null;
  const factory: Factory = {
    io,
    env,
    config() {
      config ??= loadConfig(env).then((loaded) => {
        apiUrl = loaded.apiUrl;
        return loaded;
      });
      return config;
    },
    async client() {
      const { apiUrl: baseUrl, apiKey } = await factory.config();
      return createGpuClient({ baseUrl, apiKey });
    },
    apiUrl: () => apiUrl,
  };
  return factory;
}
