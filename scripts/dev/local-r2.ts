// The key pair wrangler dev's local S3 endpoint for the VOLUMES bucket accepts: wrangler.toml's
// `local_dev.experimental_s3_credentials`, read from there so the stack and the file cannot disagree.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface LocalR2 {
  accessKeyId: string;
  secretAccessKey: string;
}

export function localR2Credentials(root: string): LocalR2 {
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const accessKeyId = /accessKeyId = "([^"]+)"/.exec(toml)?.[1];
  const secretAccessKey = /secretAccessKey = "([^"]+)"/.exec(toml)?.[1];
  if (!accessKeyId || !secretAccessKey) throw new Error("wrangler.toml has no local_dev.experimental_s3_credentials for VOLUMES");
  return { accessKeyId, secretAccessKey };
}

/** Where wrangler dev on `baseUrl` serves R2's S3 API: the bucket then the key follow. */
export const localR2Endpoint = (baseUrl: string) => `${baseUrl}/cdn-cgi/local/r2/s3`;
