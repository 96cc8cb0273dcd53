// Refusals worded once, whichever object or Worker route gives them: a client sees the same answer
// for the same cause wherever it was found.
import { fail, type Failure } from "../../core/errors.ts";

/** A caller's credential (an API key, a session or an instance token) that opens nothing. */
export const CALLER_REFUSED = "API key or session missing, wrong, expired or revoked";

export const callerRefused = (): Failure => fail("unauthorized", CALLER_REFUSED);

/** What every refusal of an instance web app's ticket or session tells a person to do. */
export const REOPEN_APP = "open the app again from the dashboard";

/** One answer for an unknown email and a wrong password, so neither tells which it was. */
export const wrongLogin = (): Failure => fail("unauthorized", "email or password is wrong");
