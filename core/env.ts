// The Worker's bindings (generated from wrangler.toml by `wrangler types` into
// worker-configuration.d.ts) and the one way each Durable Object is addressed.
export type Env = Cloudflare.Env;

export const fleetOf = (env: Env) => env.FLEET.getByName("fleet");
export const accountOf = (env: Env, accountId: string) => env.ACCOUNTS.getByName(accountId);
export const machineOf = (env: Env, machineId: number) => env.MACHINES.getByName(String(machineId));
/** A person's object: `usr-` and 16 base32 characters (contracts/members.ts USER_ID). */
export const personOf = (env: Env, userId: string) => env.PERSONS.getByName(userId);
/** `email` already trimmed and lower-cased: one object per address however it was typed. */
export const emailOf = (env: Env, email: string) => env.EMAILS.getByName(email);
/** The object of a Stripe PaymentIntent (`pi_...`) a Checkout Session of this service was paid by. */
export const stripePaymentOf = (env: Env, paymentIntentId: string) => env.PAYMENTS.getByName(paymentIntentId);
