// /v1/auth: sign-up, sign-in, sign-out, password change, the switch between a person's accounts, and
// accepting an invitation. Sign-up, sign-in and a new person's acceptance go to the email's EmailDO
// (which person holds it, and its attempt budget), which makes or asks the person; the rest go to the
// PersonDO the session cookie names. Who may call them (no foreign Origin, the session cookie alone
// for the password and the switch) is checked in app.ts, before the body rule.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { authAttemptsPerMinute } from "../../../core/attempt-budget.ts";
import { invitationTokens, personSessionOwner } from "../../../core/credentials.ts";
import { accountOf, emailOf, personOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { meOfPerson } from "../me-view.ts";
import { Me } from "../schemas/account.ts";
import { AcceptInvitation, Credentials, PasswordChange, SwitchAccount } from "../schemas/auth.ts";
import { errors } from "../schemas/common.ts";
import { requireSameOrigin } from "../session/same-origin.ts";
import { SESSION_COOKIE } from "../../http/browser-session.ts";
import { clearSessionCookie, sessionFrom, setSessionCookie } from "../session/session-cookie.ts";
import { validationHook } from "../validation.ts";

const sessionSecurity = [{ sessionCookie: [] }];
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const setsCookie = z.object({
  "set-cookie": z.string().openapi({ description: `${SESSION_COOKIE}=gps_...; HttpOnly; SameSite=Lax; Path=/; Secure (not on http://localhost)` }),
});
const signedIn = (description: string) => ({ description, headers: setsCookie, content: { "application/json": { schema: Me } } });

const signupRoute = createRoute({
  method: "post", path: "/auth/signup", summary: "Create an account and sign in",
  description: "Makes a person with an email and a password (12 to 128 characters) and their own account, of which they are the owner, and answers with a session cookie.",
  request: { body: body(Credentials) },
  responses: { 201: signedIn("The new account, the /me shape"), ...errors(400, 403, 409) },
});

const loginRoute = createRoute({
  method: "post", path: "/auth/login", summary: "Sign in",
  description: "An unknown email and a wrong password get the same 401. The session acts on the account the person used last.",
  request: { body: body(Credentials) },
  responses: { 200: signedIn("The account, the /me shape"), ...errors(400, 401, 403) },
});

const logoutRoute = createRoute({
  method: "post", path: "/auth/logout", security: sessionSecurity, summary: "Sign out",
  description:
    "Ends the session on the server and clears the cookie; without a session it only clears the cookie. The instance web apps " +
    "the session opened (POST /v1/instances/{id}/ports/{port}/open) refuse their next request, and its terminals, followed logs " +
    "and web apps' WebSockets end (a WebSocket closes with 1008 and the reason), in every account of the person.",
  responses: { 204: { description: "Signed out", headers: setsCookie }, ...errors(403) },
});

const logoutAllRoute = createRoute({
  method: "post", path: "/auth/logout-all", security: sessionSecurity, summary: "Sign out everywhere",
  description:
    "Ends every session of the person, this one included, on every browser, and clears this cookie; the instance web apps " +
    "they opened refuse their next request, and their terminals, followed logs and web apps' WebSockets end. API keys stay valid " +
    "(revoke them under /v1/keys).",
  responses: { 204: { description: "Every session ended", headers: setsCookie }, ...errors(401, 403) },
});

const passwordRoute = createRoute({
  method: "post", path: "/auth/password", security: sessionSecurity, summary: "Change the password",
  description:
    "Needs the session cookie (not an API key). Every other session of the person ends, with its terminals, followed logs and " +
    "web apps; this one stays.",
  request: { body: body(PasswordChange) },
  responses: { 204: { description: "Changed" }, ...errors(400, 401, 403, 409) },
});

const switchRoute = createRoute({
  method: "post", path: "/auth/switch", security: sessionSecurity, summary: "Act on another of the person's accounts",
  description: "Needs the session cookie (not an API key). The session acts on `account_id` from its next request on; 403 forbidden unless the person is its member.",
  request: { body: body(SwitchAccount) },
  responses: { 200: signedIn("That account, the /me shape"), ...errors(400, 401, 403) },
});

const acceptRoute = createRoute({
  method: "post", path: "/auth/accept-invitation", summary: "Accept an invitation into an account",
  description:
    "Signed in with the invitation's email: the person joins, and the session acts on the account. Nobody signed in and no person " +
    "with that email yet: `password` makes the person (400 without it). A person with that email who is not signed in: 409 " +
    "(sign in, then open the link again); signed in with another email: 403. The token is single use and valid 7 days: any other " +
    "is 404.",
  request: { body: body(AcceptInvitation) },
  responses: { 200: signedIn("The account joined, the /me shape"), ...errors(400, 403, 404, 409) },
});

export const authRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(signupRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    const attempt = { email, password, attemptsPerMinute: authAttemptsPerMinute(c.env.AUTH_RATE_LIMIT_PER_MIN) };
    const { session } = unwrap(await emailOf(c.env, email).signUp(attempt, signupCreditMicros(c.env.SIGNUP_CREDIT_MICROS)));
    return c.json(await signedInAs(c, session), 201);
  })
  .openapi(loginRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    const attempt = { email, password, attemptsPerMinute: authAttemptsPerMinute(c.env.AUTH_RATE_LIMIT_PER_MIN) };
    const { session } = unwrap(await emailOf(c.env, email).signIn(attempt));
    return c.json(await signedInAs(c, session), 200);
  })
  .openapi(logoutRoute, async (c) => {
    const session = sessionFrom(c);
    if (session) {
      requireSameOrigin(c);
      unwrap(await personOf(c.env, session.personId).signOut(session.token, false));
    }
    clearSessionCookie(c);
    return c.body(null, 204);
  })
  .openapi(logoutAllRoute, async (c) => {
    const session = sessionFrom(c);
    if (!session) throw new ApiError("unauthorized", "signing out everywhere needs a signed-in session (the gpr_session cookie)");
    requireSameOrigin(c);
    unwrap(await personOf(c.env, session.personId).signOut(session.token, true));
    clearSessionCookie(c);
    return c.body(null, 204);
  })
  .openapi(passwordRoute, async (c) => {
    const { current_password, new_password } = c.req.valid("json");
    const { token, personId } = c.var.session;
    unwrap(await personOf(c.env, personId).changePassword(token, current_password, new_password));
    return c.body(null, 204);
  })
  .openapi(switchRoute, async (c) => {
    const { token, personId } = c.var.session;
    const switched = unwrap(await personOf(c.env, personId).switchAccount(token, c.req.valid("json").account_id));
    return c.json(await meOfPerson(c.env, switched.person, switched.account_id!), 200);
  })
  .openapi(acceptRoute, async (c) => {
    const { token, password } = c.req.valid("json");
    const accountId = invitationTokens.ownerOf(token)!;
    const { invitation } = unwrap(await accountOf(c.env, accountId).invitationFor(token));
    const cookie = sessionFrom(c);
    const live = cookie ? await personOf(c.env, cookie.personId).session(cookie.token) : null;
    if (!cookie || !live) {
      const attempt = { email: invitation.email, password, token, account_id: accountId, attemptsPerMinute: authAttemptsPerMinute(c.env.AUTH_RATE_LIMIT_PER_MIN) };
      const { session } = unwrap(await emailOf(c.env, invitation.email).acceptInvitation(attempt));
      return c.json(await signedInAs(c, session), 200);
    }
    requireSameOrigin(c);
    if (live.person.email !== invitation.email) throw new ApiError("forbidden", "this invitation is for another email: sign in with the email it was sent to");
    unwrap(await accountOf(c.env, accountId).acceptInvitation(token, { user_id: live.person.user_id, email: live.person.email }));
    const joined = unwrap(await personOf(c.env, cookie.personId).joinedAccount(accountId, cookie.token));
    setSessionCookie(c, cookie.token);
    return c.json(await meOfPerson(c.env, joined.person, accountId), 200);
  });

/** The /me shape of the session just opened, which the response sets as the cookie. */
async function signedInAs(c: Context<ApiEnv>, token: string) {
  const live = await personOf(c.env, personSessionOwner(token)!).session(token);
  if (!live) throw new ApiError("internal", "the session just opened has ended already; sign in again");
  if (live.account_id === null) throw new ApiError("forbidden", "you belong to no account now: ask an account's owner or admin for an invitation");
  setSessionCookie(c, token);
  return meOfPerson(c.env, live.person, live.account_id);
}

/** SIGNUP_CREDIT_MICROS: a whole number of micro-dollars; anything else credits nothing. */
function signupCreditMicros(value: string | undefined): number {
  return /^\d{1,15}$/.test(value ?? "") ? Number(value) : 0;
}
