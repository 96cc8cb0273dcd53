// What a manager may do to a member, as the API rules it: an owner changes anyone; an admin changes
// everyone but owners, and cannot make one. (The last owner's demotion or removal is the API's to
// refuse, with 409: the page cannot know who else is an owner at that very moment.)
import { ROLES, type Role } from "../../api/roles.ts";

/** Whether a member with `manager`'s role may change the role of, or remove, a member with `member`'s. */
export const mayChange = (manager: Role, member: Role): boolean => manager === "owner" || (manager === "admin" && member !== "owner");

/** The roles a member with `manager`'s role may give, in an invitation or a change of role. */
export const rolesToGive = (manager: Role): readonly Role[] =>
  manager === "owner" ? ROLES : manager === "admin" ? ROLES.filter((role) => role !== "owner") : [];
