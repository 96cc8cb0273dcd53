// Who opened something that outlives the request that opened it (an instance web app, an SSH
// connection, a terminal, a log stream, a proxied WebSocket): an API key, by its SHA-256, or a browser
// session, by its id. The AccountDO is the authority for whether each is still live; the MachineDO
// holding what it opened ends that when the AccountDO says it has ended (machine/stream-credentials.ts,
// machine/app-sessions.ts).
import { z } from "zod";
import { isFields } from "../../protocol/json-shapes.ts";

export type Opener = { kind: "key"; key_sha256: string } | { kind: "session"; session_id: string };

/** A SHA-256 as the contracts carry it: 64 lowercase hex digits. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
const SESSION_ID = /^ses-[a-z2-7]{12}$/;

export const openerSchema: z.ZodType<Opener> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("key"), key_sha256: z.string().regex(SHA256_HEX) }),
  z.object({ kind: z.literal("session"), session_id: z.string().regex(SESSION_ID) }),
]);

/** `openerSchema` checked by hand (contracts/proxy-request.ts says why): what it returns, or undefined where it would not accept. */
export function openerByHand(raw: unknown): Opener | undefined {
  if (!isFields(raw)) return undefined;
  const { kind, key_sha256, session_id } = raw;
  if (kind === "key") return typeof key_sha256 === "string" && SHA256_HEX.test(key_sha256) ? { kind, key_sha256 } : undefined;
  if (kind === "session") return typeof session_id === "string" && SESSION_ID.test(session_id) ? { kind, session_id } : undefined;
  return undefined;
}
