// /v1/auth: sign-up, sign-in, sign-out and password change. Sign-up and sign-in go to the email's
// EmailDO (which account holds it, and its attempt budget), which calls the account; sign-out and
// the password change go to the account named by the session cookie. Who may call them (no foreign
// Origin, the session cookie alone for the password) is checked in app.ts, before the body rule.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { authAttemptsPerMinute } from "../../../core/attempt-budget.ts";
import { accountOf, emailOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { ROLES } from "../../../durable-objects/contracts/members.ts";
import type { ApiEnv } from "../context.ts";
import { Me, meBody } from "../schemas/account.ts";
import { Credentials, PasswordChange } from "../schemas/auth.ts";
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
  description: "Creates an account with an email and a password (12 to 128 characters) and answers with a session cookie.",
  request: { body: body(Credentials) },
  responses: { 201: signedIn("The new account, the /me shape"), ...errors(400, 403, 409) },
});

const loginRoute = createRoute({
  method: "post", path: "/auth/login", summary: "Sign in",
  description: "An unknown email and a wrong password get the same 401.",
  request: { body: body(Credentials) },
  responses: { 200: signedIn("The account, the /me shape"), ...errors(400, 401, 403) },
});

const logoutRoute = createRoute({
  method: "post", path: "/auth/logout", security: sessionSecurity, summary: "Sign out",
  description:
    "Ends the session on the server and clears the cookie; without a session it only clears the cookie. The instance web apps " +
    "the session opened (POST /v1/instances/{id}/ports/{port}/open) refuse their next request, and its terminals, followed logs " +
    "and web apps' WebSockets end (a WebSocket closes with 1008 and the reason).",
  responses: { 204: { description: "Signed out", headers: setsCookie }, ...errors(403) },
});

const logoutAllRoute = createRoute({
  method: "post", path: "/auth/logout-all", security: sessionSecurity, summary: "Sign out everywhere",
  description:
    "Ends every session of the account, this one included, on every browser, and clears this cookie; the instance web apps " +
    "they opened refuse their next request, and their terminals, followed logs and web apps' WebSockets end. API keys stay valid " +
    "(revoke them under /v1/keys).",
  responses: { 204: { description: "Every session ended", headers: setsCookie }, ...errors(401, 403) },
});

const passwordRoute = createRoute({
  method: "post", path: "/auth/password", security: sessionSecurity, summary: "Change the password",
  description:
    "Needs the session cookie (not an API key). Every other session of the account ends, with its terminals, followed logs and " +
    "web apps; this one stays.",
  request: { body: body(PasswordChange) },
  responses: { 204: { description: "Changed" }, ...errors(400, 401, 403, 409) },
});

export const authRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(signupRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    const attempt = { email, password, attemptsPerMinute: authAttemptsPerMinute(c.env.AUTH_RATE_LIMIT_PER_MIN) };
    const { account, session } = unwrap(await emailOf(c.env, email).signUp(attempt, signupCreditMicros(c.env.SIGNUP_CREDIT_MICROS)));
    setSessionCookie(c, session);
    return c.json(meBody(account), 201);
  })
  .openapi(loginRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    const attempt = { email, password, attemptsPerMinute: authAttemptsPerMinute(c.env.AUTH_RATE_LIMIT_PER_MIN) };
    const { account, session } = unwrap(await emailOf(c.env, email).signIn(attempt));
    setSessionCookie(c, session);
    return c.json(meBody(account), 200);
  })
  .openapi(logoutRoute, async (c) => {
    const session = sessionFrom(c);
    if (session) {
      requireSameOrigin(c);
      unwrap(await accountOf(c.env, session.accountId).signOut({ token: session.token, may: ROLES }));
    }
    clearSessionCookie(c);
    return c.body(null, 204);
  })
  .openapi(logoutAllRoute, async (c) => {
    const session = sessionFrom(c);
    if (!session) throw new ApiError("unauthorized", "signing out everywhere needs a signed-in session (the gpr_session cookie)");
    requireSameOrigin(c);
    unwrap(await accountOf(c.env, session.accountId).signOut({ token: session.token, may: ROLES }, true));
    clearSessionCookie(c);
    return c.body(null, 204);
  })
  .openapi(passwordRoute, async (c) => {
    const { current_password, new_password } = c.req.valid("json");
    unwrap(await accountOf(c.env, c.var.accountId).changePassword(c.var.credential, current_password, new_password));
    return c.body(null, 204);
  });

/** SIGNUP_CREDIT_MICROS: a whole number of micro-dollars; anything else credits nothing. */
function signupCreditMicros(value: string | undefined): number {
  return /^\d{1,15}$/.test(value ?? "") ? Number(value) : 0;
}
