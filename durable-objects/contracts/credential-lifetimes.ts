// How long the credentials that cross objects last, and how often their use is written down: the
// object that issues each one and the Worker that sets its cookie or documents it read them here.

/** An app ticket opens its app within this long (the MachineDO issues it: machine/app-sessions.ts). */
export const APP_TICKET_TTL_MS = 60_000;

/** An app session (the `gpr_app` cookie) lasts at most this long, and never longer than what opened it. */
export const APP_SESSION_TTL_MS = 12 * 3_600_000;

/** A browser session (the `gpr_session` cookie) ends after this long without use (the AccountDO: account/sessions.ts). */
export const SESSION_IDLE_MS = 30 * 24 * 3_600_000;

/** ... and after this long in any case, however much it is used: a stolen cookie does not last forever. */
export const SESSION_MAX_AGE_MS = 90 * 24 * 3_600_000;

/**
 * How stale a key's or a session's last use may get: writing it on every request would put a storage
 * commit on every request, so a use is recorded (and a MachineDO reports a key's use) at most this often.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;
