// Sign-up, sign-in, password change, switch and invitation bodies. Emails are trimmed and lower-cased before anything
// else sees them; passwords are 12 to 128 characters (code points, so any script counts fairly).
import { z } from "@hono/zod-openapi";

// The HTML `<input type="email">` rule (WHATWG): what a browser form accepts, `dev@localhost` included.
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** An email as every body takes it: trimmed, lower-cased, the HTML form's rule. */
export const email = z
  .string("must be an email address")
  .trim()
  .toLowerCase()
  .max(254, "must be at most 254 characters")
  .regex(EMAIL, "must be an email address such as ada@example.com")
  .openapi({ example: "ada@example.com" });

const passwordRule = `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;
const password = z
  .string(passwordRule)
  .refine((text) => [...text].length >= PASSWORD_MIN && [...text].length <= PASSWORD_MAX, passwordRule)
  .openapi({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, example: "correct horse battery" });

export const Credentials = z
  .object({
    email: email.openapi({ description: "The account's email; spaces around it are trimmed and it is lower-cased" }),
    password: password.openapi({ description: `The account's password, ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (Unicode code points)` }),
  })
  .strict()
  .openapi("Credentials");

export const PasswordChange = z
  .object({
    current_password: z.string("must be the account's password").min(1, "must be the account's password").max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
      .openapi({ description: "The account's password now" }),
    new_password: password.openapi({ description: `The password from now on, ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (Unicode code points)` }),
  })
  .strict()
  .openapi("PasswordChange");

export const SwitchAccount = z
  .object({
    account_id: z.string("must be an account id").regex(/^acc-[a-z2-7]{16}$/, "must be an account id: acc- and 16 lowercase base32 characters")
      .openapi({ description: "One of the person's accounts (GET /v1/me `accounts`)", example: "acc-abcdefghijklmnop" }),
  })
  .strict()
  .openapi("SwitchAccount");

export const AcceptInvitation = z
  .object({
    token: z.string("must be an invitation token").regex(/^gpv_acc-[a-z2-7]{16}_[a-z2-7]{32}$/, "must be an invitation token: the part of the link after #")
      .openapi({ description: "The invitation's token: what follows `#` in its link", example: "gpv_acc-abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567" }),
    password: password.optional()
      .openapi({ description: `A new person's password, ${PASSWORD_MIN} to ${PASSWORD_MAX} characters: needed when nobody is signed in and no person has the invitation's email yet` }),
  })
  .strict()
  .openapi("AcceptInvitation");
