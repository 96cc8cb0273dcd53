// Every credential the service issues, made and recognised here only. Each carries the id of the
// object that can check it (an account or a machine), so a request is routed without a lookup;
// the secret part is random and only its SHA-256 is ever stored. (Passwords are not credentials of
// this kind: they are chosen by people, so they get a slow salted hash instead.)
import { randomBase32 } from "./ids.ts";

const SECRET = "[a-z2-7]{32}";
const ACCOUNT_ID = "acc-[a-z2-7]{16}";

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

const accountOwner = (text: string) => text;

/** An account's API key: `gpk_<account id>_<secret>`. */
export const apiKeys = new CredentialFormat("gpk_", ACCOUNT_ID, accountOwner);
/** An instance's own proxy token: `gpi_<account id>_<secret>`. */
export const instanceTokens = new CredentialFormat("gpi_", ACCOUNT_ID, accountOwner);
/** A browser session, sent only as the `gpr_session` cookie: `gps_<account id>_<secret>`. */
export const sessionTokens = new CredentialFormat("gps_", ACCOUNT_ID, accountOwner);
/** A host agent's machine token: `gma_<machine id>_<secret>`. */
export const agentTokens = new CredentialFormat("gma_", "[1-9][0-9]{0,9}", Number);

/** What an API key list shows of a key: enough to recognise it, never enough to use it. */
export const keyPrefix = (key: string) => key.slice(0, apiKeys.prefix.length + "acc-".length + 16 + 5);

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined | null): string | null {
  return /^Bearer +(\S+)\s*$/i.exec(header ?? "")?.[1] ?? null;
}
