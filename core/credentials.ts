// Every credential the service issues, made and recognised here only. Each carries the id of the
// object that can check it (an account, a machine, or an instance, which names its machine), so a
// request is routed without a lookup; the secret part is random and only its SHA-256 is ever
// stored, except an instance token's, which is derived from the instance id and a service secret
// and so is stored nowhere. (Passwords are not credentials of this kind: they are chosen by people,
// so they get a slow salted hash instead.)
import { base32, randomBase32 } from "./ids.ts";

const SECRET = "[a-z2-7]{32}";
const ACCOUNT_ID = "acc-[a-z2-7]{16}";
/** A person's session names the person; one made before teams names the account that was their one login. */
const SESSION_OWNER = "(?:usr|acc)-[a-z2-7]{16}";
const INSTANCE_ID = "i-[a-z2-7]{16}";

/** A kind of credential: its prefix and the shape of the routing id it carries. */
class CredentialFormat<Owner extends string | number> {
  readonly prefix: string;
  private readonly pattern: RegExp;
  private readonly parseOwner: (text: string) => Owner;

  constructor(prefix: string, ownerPattern: string, parseOwner: (text: string) => Owner) {
    this.prefix = prefix;
    this.pattern = new RegExp(`^${prefix}(${ownerPattern})_${SECRET}$`);
    this.parseOwner = parseOwner;
  }

  /** A new credential for `owner`. */
  issue(owner: Owner): string {
    return `${this.prefix}${owner}_${randomBase32(32)}`;
  }

  /** The owner id a credential of this kind claims, or null when it is not shaped like one. */
  ownerOf(credential: string): Owner | null {
    const match = this.pattern.exec(credential);
    return match ? this.parseOwner(match[1]!) : null;
  }
}

/** The owner id as it appears: an account's or an instance's. */
const idOwner = (text: string) => text;

/** An account's API key: `gpk_<account id>_<secret>`. */
export const apiKeys = new CredentialFormat("gpk_", ACCOUNT_ID, idOwner);
/** An instance's own proxy token: `gpi_<account id>_<secret>`, the secret from `instanceTokenFor`. */
export const instanceTokens = new CredentialFormat("gpi_", ACCOUNT_ID, idOwner);
/**
 * A person's browser session, sent only as the `gpr_session` cookie: `gps_<user id>_<secret>`; a session
 * made before teams is `gps_<account id>_<secret>` and keeps working (personSessionOwner).
 */
export const sessionTokens = new CredentialFormat("gps_", SESSION_OWNER, idOwner);
/** An invitation into an account, single use, sent as a link's fragment: `gpv_<account id>_<secret>`. */
export const invitationTokens = new CredentialFormat("gpv_", ACCOUNT_ID, idOwner);
/** A one-time ticket that opens an instance web app, valid 60 s: `gpt_<instance id>_<secret>`. */
export const appTickets = new CredentialFormat("gpt_", INSTANCE_ID, idOwner);
/** An instance web app's session, sent only as the `gpr_app` cookie of its own origin: `gpa_<instance id>_<secret>`. */
export const appSessionTokens = new CredentialFormat("gpa_", INSTANCE_ID, idOwner);
/** A host agent's machine token: `gma_<machine id>_<secret>`. */
export const agentTokens = new CredentialFormat("gma_", "[1-9][0-9]{0,9}", Number);

/**
 * The person whose PersonDO checks a session token: the user id it names, or for a session of before
 * teams the person made from its account (`usr-` and the account's 16 characters); null when it is no session token.
 */
export function personSessionOwner(token: string): string | null {
  const owner = sessionTokens.ownerOf(token);
  return owner === null ? null : `usr-${owner.slice(owner.indexOf("-") + 1)}`;
}

/** What an API key list shows of a key: enough to recognise it, never enough to use it. */
export const keyPrefix = (key: string) => key.slice(0, apiKeys.prefix.length + "acc-".length + 16 + 5);

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined | null): string | null {
  return /^Bearer +(\S+)\s*$/i.exec(header ?? "")?.[1] ?? null;
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

/**
 * The proxy token of instance `instanceId` of account `accountId`: `gpi_<account id>_` and the first
 * 160 bits of HMAC-SHA256(`secret`, instance id) in base32. Whoever holds the secret (the Worker's
 * INSTANCE_TOKEN_SECRET) computes it when needed, so no object stores it; it stays the same for the
 * instance's life.
 */
export async function instanceTokenFor(secret: string, accountId: string, instanceId: string): Promise<string> {
  if (!secret) throw new Error("INSTANCE_TOKEN_SECRET is not set");
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(secret, key);
  }
  const mac = await crypto.subtle.sign("HMAC", await key, new TextEncoder().encode(instanceId));
  return `${instanceTokens.prefix}${accountId}_${base32(new Uint8Array(mac, 0, 20))}`;
}
