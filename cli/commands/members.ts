// `gpu members ls|invite|role|rm`: the people of the account in use and their roles. An invitation
// is a link, printed to send to the person (it works once, for that email, for 7 days); a member is
// named by their user id or their email.
import { Command } from "@commander-js/extra-typings";
import { ok, type components, type GpuClient } from "../../client/index.ts";
import { confirmOrRefuse } from "../confirm.ts";
import { CliError } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { printDone, printJson, printTable } from "../format.ts";
import { JSON_HELP, QUIET_HELP } from "../options.ts";
import { readCommand } from "./read-command.ts";

/** A role as typed: the API checks it, and its refusal names the field and the roles there are. */
type Role = components["schemas"]["Member"]["role"];
const ROLES_HELP = "owner, admin, developer, billing or viewer";
const MEMBER_ARGUMENT = ["<member>", "the member's user id (usr-…) or email, from `gpu members ls`"] as const;

export function membersCommand(f: Factory) {
  return new Command("members")
    .description("Manage the people of the account and their roles: ls, invite, role, rm")
    .addCommand(listMembers(f))
    .addCommand(inviteMember(f))
    .addCommand(changeRole(f))
    .addCommand(removeMember(f));
}

function listMembers(f: Factory) {
  return readCommand(
    f, "ls", "List the account's members: user id, email, role, when they joined and were last seen",
    (api) => ok(api.GET("/v1/members")),
    (list) => printTable(
      f.io, ["USER ID", "EMAIL", "ROLE", "JOINED", "LAST SEEN"],
      list.items.map((m) => [m.user_id, m.email, m.role, m.joined_at, m.last_seen_at ?? "never"]),
    ),
  );
}

function inviteMember(f: Factory) {
  return new Command("invite")
    .description("Invite a person by email: prints the link to send them (it works once, for that email, for 7 days)")
    .argument("<email>", "the person's email; they accept signed in with it, or set a password there")
    .requiredOption("--role <role>", `their role: ${ROLES_HELP}`)
    .option("--json", JSON_HELP)
    .action(async (email, options) => {
      const invitation = await ok((await f.client()).POST("/v1/members/invitations", { body: { email, role: options.role as Role } }));
      if (options.json) return printJson(f.io, invitation);
      f.io.out(invitation.url);
      if (f.io.isStderrTty) f.io.err(`Invited ${invitation.email} as ${invitation.role}: send them the link above; it works once, until ${invitation.expires_at}.`);
    });
}

function changeRole(f: Factory) {
  return new Command("role")
    .description("Change a member's role (only an owner makes, demotes or removes an owner; the last owner stays one)")
    .argument(...MEMBER_ARGUMENT)
    .argument("<role>", ROLES_HELP)
    .option("--json", JSON_HELP)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (name, role, options) => {
      const api = await f.client();
      const member = await memberNamed(api, name);
      const changed = await ok(api.PATCH("/v1/members/{user_id}", { params: { path: { user_id: member.user_id } }, body: { role: role as Role } }));
      if (options.json) return printJson(f.io, changed);
      printDone(f.io, `${changed.email} is now ${changed.role}`, options);
    });
}

function removeMember(f: Factory) {
  return new Command("rm")
    .description("Remove a member: their sessions lose the account at once, and the API keys they created are revoked")
    .argument(...MEMBER_ARGUMENT)
    .option("-y, --yes", "do not ask for confirmation (needed when not on a terminal)")
    .option("--json", `${JSON_HELP} (the members left)`)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (name, options) => {
      const api = await f.client();
      const member = await memberNamed(api, name);
      if (!options.yes) {
        await confirmOrRefuse(
          f, `Remove ${member.email} from the account? The API keys they created are revoked.`,
          `removing ${member.email} revokes the API keys they created: pass --yes to confirm`, "not removed",
        );
      }
      const { response } = await api.DELETE("/v1/members/{user_id}", { params: { path: { user_id: member.user_id } } });
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/members")));
      const revoked = Number(response.headers.get("revoked-keys") ?? 0);
      printDone(f.io, `Removed ${member.email} (${member.user_id}); ${revoked} API key${revoked === 1 ? "" : "s"} they created revoked`, options);
    });
}

/** The member a command line names, by user id or email (as the account's list has it). */
async function memberNamed(api: GpuClient, name: string) {
  const { items } = await ok(api.GET("/v1/members"));
  const member = items.find((m) => m.user_id === name || m.email.toLowerCase() === name.toLowerCase());
  if (!member) throw new CliError(`no member ${name} in this account; \`gpu members ls\` lists them`);
  return member;
}
