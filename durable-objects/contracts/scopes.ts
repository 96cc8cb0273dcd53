// What an API key may do besides its maker's role: its scopes. A key made without scopes holds `*`,
// all the account's rights, as the spec says. `write` implies `use` implies `read` within a group;
// `instances:use` is what an application server needs (the proxy, web apps, SSH, the terminal,
// files, logs) and never launches, stops, destroys or spends. Each route needs one scope (or none:
// any live credential), named in workers/api/roles/route-roles.ts beside its roles; a person's
// session holds every scope, within their role.
import { z } from "zod";

export const SCOPES = [
  "instances:read", "instances:use", "instances:write",
  "volumes:read", "volumes:write",
  "billing:read", "billing:write",
  "account:read", "account:write",
] as const;
export type Scope = (typeof SCOPES)[number];
/** A key's scopes as stored and shown: `*` or a list of scopes. */
export type KeyScopes = readonly ("*" | Scope)[];
export const keyScopeSchema = z.enum(["*", ...SCOPES]);

const LEVELS = ["read", "use", "write"] as const;

/** Whether `held` grants `needed`: `*`, the scope itself, or a higher level of its group. */
export function grants(held: KeyScopes, needed: Scope): boolean {
  const [group, level] = needed.split(":") as [string, (typeof LEVELS)[number]];
  return held.some((scope) => {
    if (scope === "*") return true;
    const [heldGroup, heldLevel] = scope.split(":") as [string, (typeof LEVELS)[number]];
    return heldGroup === group && LEVELS.indexOf(heldLevel) >= LEVELS.indexOf(level);
  });
}

/** 403 `forbidden` for a key whose scopes do not grant `needed`. */
export const scopeRefusalMessage = (needed: Scope): string => `this API key's scopes do not allow this: it needs the scope ${needed}`;
