// A caller presenting `Authorization: Bearer` with an API key or an instance token (the path proxy;
// next, SSH). The MachineDO is shown a key's SHA-256 only, or the token itself (it derives the
// expected one); what it cannot judge goes to the credential's own AccountDO (a wrong key 401,
// another account's 404), which names the instance's machine when it admits the caller.
import { apiKeys, bearerToken, instanceTokens } from "../../core/credentials.ts";
import { accountOf, type Env } from "../../core/env.ts";
import { ApiError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import type { ProxyCredential } from "../../durable-objects/contracts/proxy-request.ts";
import type { Admission } from "./forward-to-instance.ts";
import { INSTANCE_USE_ROLES } from "../../durable-objects/contracts/members.ts";
import { callerIp } from "../http/caller-ip.ts";

/** The request's Bearer credential as sent, the account it claims and what the MachineDO is shown of it; 401 when it is neither kind. */
export async function presentedBearer(request: Request): Promise<{ bearer: string; accountId: string; credential: ProxyCredential }> {
  const bearer = bearerToken(request.headers.get("authorization"));
  const presented = bearer === null ? null : await presentedCredential(bearer);
  if (bearer === null || presented === null) throw new ApiError("unauthorized", "send Authorization: Bearer <API_KEY or instance token>");
  return { bearer, ...presented };
}

/** The admission of the request's Bearer credential to instance `instanceId`; 401 when it is neither kind. */
export async function bearerAdmission(request: Request, env: Env, instanceId: string): Promise<Admission> {
  const { bearer, accountId, credential } = await presentedBearer(request);
  return { credential, askAccount: () => accountOf(env, accountId).openProxy({ token: bearer, may: INSTANCE_USE_ROLES, needs: "instances:use", ip: callerIp(request) }, instanceId) };
}

/** Who the credential claims to be (its account) and what the MachineDO is shown of it; null when it is neither kind. */
async function presentedCredential(credential: string): Promise<{ accountId: string; credential: ProxyCredential } | null> {
  const keyAccount = apiKeys.ownerOf(credential);
  if (keyAccount !== null) return { accountId: keyAccount, credential: { kind: "key", key_sha256: await sha256Hex(credential) } };
  const tokenAccount = instanceTokens.ownerOf(credential);
  if (tokenAccount !== null) return { accountId: tokenAccount, credential: { kind: "instance_token", token: credential } };
  return null;
}
