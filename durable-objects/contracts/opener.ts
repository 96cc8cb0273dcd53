// Who opened something that outlives the request that opened it (an instance web app, an SSH
// connection, a terminal, a log stream, a proxied WebSocket): an API key, by its SHA-256, or a browser
// session, by its id. The AccountDO is the authority for whether each is still live; the MachineDO
// holding what it opened ends that when the AccountDO says it has ended (machine/stream-credentials.ts,
// machine/app-sessions.ts).
import { z } from "zod";

export type Opener = { kind: "key"; key_sha256: string } | { kind: "session"; session_id: string };

export const openerSchema: z.ZodType<Opener> = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("key"), key_sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  z.object({ kind: z.literal("session"), session_id: z.string().regex(/^ses-[a-z2-7]{12}$/) }),
]);
