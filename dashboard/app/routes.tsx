// The dashboard's pages by path: the pricing page and an invitation's for anyone, the two for signing in, and the rest, which need
// a session (those with a `nav` label are the main navigation's links, in this order; those with `may`, only for the roles that may
// call that route).
import type { ReactNode } from "react";
import { mayCall, type GuardedRoute, type Role } from "../api/roles.ts";
import { AuditPage } from "../pages/audit/audit-page.tsx";
import { BillingPage } from "../pages/billing/billing-page.tsx";
import { InstancePage } from "../pages/instance/instance-page.tsx";
import { InstancesPage } from "../pages/instances/instances-page.tsx";
import { InvitePage } from "../pages/invite/invite-page.tsx";
import { KeysPage } from "../pages/keys/keys-page.tsx";
import { LaunchPage } from "../pages/launch/launch-page.tsx";
import { LoginPage } from "../pages/login/login-page.tsx";
import { MembersPage } from "../pages/members/members-page.tsx";
import { NotAllowedPage } from "../pages/not-allowed/not-allowed-page.tsx";
import { OverviewPage } from "../pages/overview/overview-page.tsx";
import { PasswordPage } from "../pages/password/password-page.tsx";
import { PricingPage } from "../pages/pricing/pricing-page.tsx";
import { SignupPage } from "../pages/signup/signup-page.tsx";
import { SshKeysPage } from "../pages/ssh-keys/ssh-keys-page.tsx";
import { VolumePage } from "../pages/volume/volume-page.tsx";
import { VolumesPage } from "../pages/volumes/volumes-page.tsx";
import { WebhooksPage } from "../pages/webhooks/webhooks-page.tsx";
import { matchPath } from "../router/router.tsx";

interface Route {
  path: string;
  /** The page's link text in the main navigation; pages without one are reached from other pages. */
  nav?: string;
  /** The route whose roles may use the page: what it is for (others are told their role does not allow it). */
  may?: GuardedRoute;
  page: (params: Record<string, string>) => ReactNode;
}

/** Pages for anyone, signed in or not. */
export const OPEN_ROUTES: readonly Route[] = [
  { path: "/pricing", page: () => <PricingPage /> },
  { path: "/invite", page: () => <InvitePage /> },
];

export const PUBLIC_ROUTES: readonly Route[] = [
  { path: "/login", page: () => <LoginPage /> },
  { path: "/signup", page: () => <SignupPage /> },
];

export const SIGNED_IN_ROUTES: readonly Route[] = [
  { path: "/", nav: "Overview", page: () => <OverviewPage /> },
  { path: "/instances", nav: "Instances", page: () => <InstancesPage /> },
  { path: "/instances/:id", page: ({ id }) => <InstancePage key={id} id={id!} /> },
  { path: "/launch", nav: "Launch", may: "POST /instances", page: () => <LaunchPage /> },
  { path: "/volumes", nav: "Volumes", page: () => <VolumesPage /> },
  { path: "/volumes/:id", page: ({ id }) => <VolumePage key={id} id={id!} /> },
  { path: "/settings/keys", nav: "API keys", page: () => <KeysPage /> },
  { path: "/settings/ssh-keys", nav: "SSH keys", page: () => <SshKeysPage /> },
  { path: "/settings/webhooks", nav: "Webhooks", page: () => <WebhooksPage /> },
  { path: "/billing", nav: "Billing", page: () => <BillingPage /> },
  { path: "/settings/members", nav: "Members", may: "POST /members/invitations", page: () => <MembersPage /> },
  { path: "/settings/audit", nav: "Audit log", may: "GET /audit-log", page: () => <AuditPage /> },
  { path: "/settings/password", nav: "Password", page: () => <PasswordPage /> },
];

/** Whether a member with `role` may use the route's page. */
export const mayOpen = (route: Route, role: Role): boolean => route.may === undefined || mayCall(role, route.may);

/** The page for `path` among `routes`, or null; for a signed-in member's `role`, a page it may not use says so instead. */
export function findPage(routes: readonly Route[], path: string, role?: Role): ReactNode | null {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (!params) continue;
    if (role !== undefined && route.may !== undefined && !mayOpen(route, role)) return <NotAllowedPage role={role} route={route.may} />;
    return route.page(params);
  }
  return null;
}
