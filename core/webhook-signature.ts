// Standard Webhooks signing (www.standardwebhooks.com), so a customer verifies with the
// `standardwebhooks` or `svix` package unchanged: the secret is `whsec_` + base64 of random bytes,
// the signature `v1,` + base64 of HMAC-SHA256 over `<id>.<timestamp>.<body>` keyed by those bytes.
const PREFIX = "whsec_";

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A new secret: 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** The `webhook-signature` value of one secret for a message. */
export async function webhookSignature(secret: string, id: string, timestampS: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", fromBase64(secret.slice(PREFIX.length)), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestampS}.${body}`));
  return "v1," + toBase64(new Uint8Array(mac));
}
