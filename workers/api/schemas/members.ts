// The account's members and invitations (/v1/members), and the account's name (PATCH /v1/account).
import { z } from "@hono/zod-openapi";
import { ROLES, USER_ID } from "../../../durable-objects/contracts/members.ts";
import { email } from "./auth.ts";
import { timestamp } from "./common.ts";

const ROLE_RULE = `must be one of ${ROLES.join(", ")}`;
const role = z.enum(ROLES, ROLE_RULE).openapi({
  description: "owner (everything), admin (everything but changing owners), developer (instances, volumes, their own API keys; reads billing), billing (payments, ledger; reads the rest) or viewer (reads what a developer reads)",
});
const userId = z.string().openapi({ description: "The person's id: `usr-` and 16 lowercase base32 characters" });

export const UserIdParam = z.object({
  user_id: z.string().regex(USER_ID, "must be a person's id: usr- and 16 characters of a-z and 2-7")
    .openapi({ param: { name: "user_id", in: "path", description: "The member's `user_id` from GET /v1/members" }, example: "usr-abcdefghijklmnop" }),
});

export const InvitationIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path", description: "The invitation's `id` from GET /v1/members/invitations" }, example: "inv-abcdefghijkl" }),
});

export const Member = z
  .object({
    user_id: userId,
    email: z.string().openapi({ description: "The email they sign in with" }),
    role,
    joined_at: timestamp.openapi({ description: "When they became a member" }),
    last_seen_at: timestamp.nullable().openapi({ description: "Their last request to this account with their session, to the minute; null before their first" }),
  })
  .openapi("Member");

export const MemberList = z
  .object({ items: z.array(Member).openapi({ description: "Every member, owners first, then by when they joined" }) })
  .openapi("MemberList");

export const RoleChange = z.object({ role: role.openapi({ description: "Their role from now on; their API keys act with it too" }) }).strict().openapi("RoleChange");

export const NewInvitation = z
  .object({
    email: email.openapi({ description: "The person invited: only a person signed in with this email can accept (trimmed and lower-cased)" }),
    role: role.openapi({ description: "The role they get when they accept; only an owner may invite an owner" }),
  })
  .strict()
  .openapi("NewInvitation");

const invitationFields = {
  id: z.string().openapi({ description: "The invitation's id: `inv-` and 12 lowercase base32 characters; revoke it by it" }),
  email: z.string().openapi({ description: "Who may accept it" }),
  role,
  created_at: timestamp.openapi({ description: "When it was made" }),
  expires_at: timestamp.openapi({ description: "After this it no longer works: 7 days after it was made" }),
};

export const Invitation = z.object(invitationFields).openapi("Invitation");

export const CreatedInvitation = z
  .object({
    ...invitationFields,
    url: z.string().openapi({
      description: "The link to hand the person, shown this once: this service's /invite page with a single-use token after the `#` (so it reaches no server's log)",
      example: "https://gpu.example.com/invite#gpv_acc-abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567",
    }),
  })
  .openapi("CreatedInvitation");

export const InvitationList = z
  .object({ items: z.array(Invitation).openapi({ description: "The pending ones (not used, revoked or expired), oldest first" }) })
  .openapi("InvitationList");

/** An account's name: 1 to 64 characters once trimmed. */
export const accountName = z.string("must be 1 to 64 characters").trim().min(1, "must be 1 to 64 characters").max(64, "must be 1 to 64 characters")
  .openapi({ description: "What its members call it, 1 to 64 characters (trimmed)", example: "Acme research" });
