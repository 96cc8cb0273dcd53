// Test helpers for sign-up and sessions: requests as a signed-in browser sends them, with the
// gpr_session cookie and (for requests that change something) this service's Origin.
import { BASE, call, callJson, type CallOptions } from "./api-client.ts";

export const PASSWORD = "correct horse battery staple";
let emails = 0;

/** An email no other test uses (storage is shared by the tests of one file). */
export const uniqueEmail = (tag = "user") => `${tag}-${Date.now().toString(36)}-${++emails}@example.com`;

/** The gpr_session value a response sets, or null. */
export function sessionCookie(response: { headers: Headers }): string | null {
  const line = response.headers.getSetCookie().find((c) => c.startsWith("gpr_session="));
  return line ? decodeURIComponent(line.slice("gpr_session=".length).split(";")[0]!) : null;
}

/** Headers of a browser request signed in with `session`; `origin: null` leaves Origin out. */
export function browser(session: string, origin: string | null = BASE): Record<string, string> {
  return { cookie: `gpr_session=${session}`, ...(origin === null ? {} : { origin }) };
}

/** Calls as a signed-in browser. */
export function asBrowser(method: string, path: string, session: string, options: CallOptions & { origin?: string | null } = {}) {
  return callJson(method, path, { ...options, headers: { ...browser(session, options.origin), ...options.headers } });
}

export interface SignedUp {
  /** The account's id. */
  id: string;
  /** The person's. */
  userId: string;
  email: string;
  password: string;
  session: string;
}

/** Signs up a new person and their account; throws unless they are made. */
export async function signUp(email = uniqueEmail(), password = PASSWORD): Promise<SignedUp> {
  const response = await call("POST", "/v1/auth/signup", { body: { email, password } });
  const body = (await response.json()) as { account: { id: string }; user: { id: string } };
  if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(body)}`);
  return { id: body.account.id, userId: body.user.id, email, password, session: sessionCookie(response)! };
}

/** Signs in; the new session, or throws. */
export async function signIn(email: string, password: string): Promise<string> {
  const response = await call("POST", "/v1/auth/login", { body: { email, password } });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return sessionCookie(response)!;
}
