// Webhook signing secrets at rest. Unlike API keys and sessions (kept only as hashes), a signing
// secret must be used again on every delivery to compute its HMAC, so it is kept encrypted: AES-GCM
// under a key derived (HKDF) from INSTANCE_TOKEN_SECRET, bound to the endpoint's id, so a copy of
// the storage alone reveals no secret and a sealed value moved to another endpoint does not open.
const INFO = new TextEncoder().encode("gpu-rental webhook signing secrets v1");

const keys = new Map<string, Promise<CryptoKey>>();

function boxKey(rootSecret: string): Promise<CryptoKey> {
  if (!rootSecret) throw new Error("INSTANCE_TOKEN_SECRET is not set");
  let key = keys.get(rootSecret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(rootSecret), "HKDF", false, ["deriveKey"]).then((root) =>
      crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: INFO }, root, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]));
    keys.set(rootSecret, key);
  }
  return key;
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** `secret` encrypted for endpoint `endpointId`: base64 of iv and ciphertext. */
export async function sealSecret(rootSecret: string, endpointId: string, secret: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(endpointId) }, await boxKey(rootSecret), new TextEncoder().encode(secret));
  return toBase64(iv) + "." + toBase64(new Uint8Array(sealed));
}

export async function openSecret(rootSecret: string, endpointId: string, sealed: string): Promise<string> {
  const [iv, data] = sealed.split(".") as [string, string];
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv), additionalData: new TextEncoder().encode(endpointId) }, await boxKey(rootSecret), fromBase64(data));
  return new TextDecoder().decode(plain);
}
