// Parses /v1/instances/{id}/proxy/{port}/{path} from the raw URL, so the path and query reach the
// upstream exactly as the client encoded them.
import { ApiError } from "../../core/errors.ts";
import { rawPathAndQuery } from "../http/raw-url.ts";

export interface ProxyPath {
  instanceId: string;
  port: number;
  /** Path and query for the upstream, percent-encoding untouched; at least "/". */
  target: string;
  /** The public prefix the upstream app lives under (X-Forwarded-Prefix). */
  prefix: string;
}

const PROXY_PATH = /^\/v1\/instances\/([^/?#]+)\/proxy(?:\/([^/?#]*))?([^?#]*)(\?[^#]*)?/;

/**
 * The proxy target of `rawUrl`, or null when it is not a proxy path; a proxy path with a bad port is
 * still the proxy's (rate limited like any other), answered with the 400 returned here.
 */
export function matchProxyPath(rawUrl: string): ProxyPath | ApiError | null {
  const match = PROXY_PATH.exec(rawPathAndQuery(rawUrl));
  if (!match) return null;
  const [, instanceId = "", portText = "", rest = "", query = ""] = match;
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535)) return new ApiError("invalid", "port: must be an integer from 1 to 65535");
  return {
    instanceId,
    port,
    target: (rest === "" ? "/" : rest) + query,
    prefix: `/v1/instances/${instanceId}/proxy/${port}`,
  };
}
