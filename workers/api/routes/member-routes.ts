// /v1/members: the account's members and their roles, and invitations by link. The AccountDO is the
// authority for both (members/): it checks the caller's role and the owner rules on the same call.
import { OpenAPIHono } from "@hono/zod-openapi";
import { accountOf } from "../../../core/env.ts";
import { unwrap } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { json, jsonBody } from "../schemas/common.ts";
import { CreatedInvitation, InvitationIdParam, InvitationList, Member, MemberList, NewInvitation, RoleChange, UserIdParam } from "../schemas/members.ts";
import { validationHook } from "../validation.ts";
import { callerRoute } from "./caller-route.ts";

const OWNER_RULE = "Only an owner may make, demote or remove an owner (403 forbidden); the last owner can be neither demoted nor removed (409 conflict).";

const listRoute = callerRoute([], {
  method: "get", path: "/members", summary: "The account's members and their roles",
  responses: { 200: json(MemberList, "Members") },
});

const inviteRoute = callerRoute([400, 409], {
  method: "post", path: "/members/invitations", summary: "Invite a person by email; the link is shown this once",
  description:
    "The `url` holds a single-use token, valid 7 days, that only a person with this email can accept (POST /v1/auth/accept-invitation). " +
    "A new invitation for the same email replaces the pending one. Only an owner may invite an owner (403 forbidden); " +
    "an email that is a member already, or a 101st pending invitation, is 409 conflict.",
  request: { body: jsonBody(NewInvitation) },
  responses: { 201: json(CreatedInvitation, "The invitation") },
});

const invitationsRoute = callerRoute([], {
  method: "get", path: "/members/invitations", summary: "The pending invitations",
  responses: { 200: json(InvitationList, "Pending invitations") },
});

const revokeInvitationRoute = callerRoute([404], {
  method: "delete", path: "/members/invitations/{id}", summary: "Revoke a pending invitation: its link no longer works",
  request: { params: InvitationIdParam },
  responses: { 204: { description: "Revoked" } },
});

const changeRoute = callerRoute([400, 404, 409], {
  method: "patch", path: "/members/{user_id}", summary: "Change a member's role",
  description: `From their next request on, they and the API keys they made act with the new role. ${OWNER_RULE}`,
  request: { params: UserIdParam, body: jsonBody(RoleChange) },
  responses: { 200: json(Member, "The member") },
});

const removeRoute = callerRoute([400, 404, 409], {
  method: "delete", path: "/members/{user_id}", summary: "Remove a member",
  description:
    "Their sessions lose the account at once (their next request to it is 403), what those sessions opened on its instances ends, " +
    `and the API keys they made are revoked: the answer's Revoked-Keys header says how many. ${OWNER_RULE}`,
  request: { params: UserIdParam },
  responses: {
    204: { description: "Removed", headers: { "Revoked-Keys": { description: "How many of their API keys were revoked", schema: { type: "integer" } } } },
  },
});

export const memberRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(listRoute, async (c) => {
    const { items } = unwrap(await accountOf(c.env, c.var.accountId).listMembers(c.var.credential));
    return c.json({ items }, 200);
  })
  .openapi(inviteRoute, async (c) => {
    const { invitation, token } = unwrap(await accountOf(c.env, c.var.accountId).invite(c.var.credential, c.req.valid("json")));
    // After `#`: a browser sends no fragment to a server, nor in a Referer.
    return c.json({ ...invitation, url: `${new URL(c.req.url).origin}/invite#${token}` }, 201);
  })
  .openapi(invitationsRoute, async (c) => {
    const { items } = unwrap(await accountOf(c.env, c.var.accountId).listInvitations(c.var.credential));
    return c.json({ items }, 200);
  })
  .openapi(revokeInvitationRoute, async (c) => {
    unwrap(await accountOf(c.env, c.var.accountId).revokeInvitation(c.var.credential, c.req.valid("param").id));
    return c.body(null, 204);
  })
  .openapi(changeRoute, async (c) => {
    const { member } = unwrap(await accountOf(c.env, c.var.accountId).changeMember(c.var.credential, c.req.valid("param").user_id, c.req.valid("json").role));
    return c.json(member, 200);
  })
  .openapi(removeRoute, async (c) => {
    const { revoked_keys } = unwrap(await accountOf(c.env, c.var.accountId).removeMember(c.var.credential, c.req.valid("param").user_id));
    return c.body(null, 204, { "Revoked-Keys": String(revoked_keys) });
  });
