// The rule for a webhook endpoint's URL: https; plain http only to a loopback host, and only while
// this service itself answers on one (a development stack sending to a receiver beside it); never
// credentials in the URL (they would show in every listing); at most 2,048 characters.
import { ApiError } from "../../core/errors.ts";

export const MAX_WEBHOOK_URL_CHARS = 2048;

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The URL as given when it passes; otherwise 400 invalid naming `url` and the rule. */
export function checkWebhookUrl(value: string, serviceUrl: string): string {
  const refuse = (rule: string) => new ApiError("invalid", `url: ${rule}`);
  if (value.length > MAX_WEBHOOK_URL_CHARS) throw refuse(`must be at most ${MAX_WEBHOOK_URL_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("must be an absolute URL");
  }
  if (url.username || url.password) throw refuse("must not contain credentials");
  if (url.protocol === "https:") return value;
  if (url.protocol !== "http:") throw refuse("must be https");
  if (!isLoopback(url.hostname)) throw refuse("must be https (http only to a loopback host)");
  if (!isLoopback(new URL(serviceUrl).hostname)) throw refuse("must be https (http to a loopback host only while this service runs on one)");
  return value;
}
